"""Where in the file a finding is shown (the line and column a CI annotation points at), for
positions inside JSON strings whose raw spelling differs from their text (escapes, surrogate
pairs), JSON Lines records read from standard input or after a byte order mark, and a run
whose first file could not be read.

The expected column is worked out here from the file's own text: the raw characters that
spell the decoded text before the position, as ``json.dumps`` wrote them.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from teamwire.validator import LintOptions, LintReport, lint_file
from teamwire.validator.locate import with_file_lines

UIO = LintOptions(agent="UI Operator_1")
TASK = "来自 Team Leader 的任务发布{label}\nid: task_001\n\n<Team Leader>\n<Task>\nDesign it.\n</Task>\n"


def _conversation(content: str) -> list[dict[str, object]]:
    return [{"role": "system", "content": "You are UI Operator_1."},
            {"role": "user", "content": content}]


def _placed(path: Path) -> list[tuple[str, int | None, int | None, int | None, int | None]]:
    report = LintReport([lint_file(str(path), UIO)])
    with_file_lines(report.files)
    return [(f.rule, f.line, f.column, f.file_line, f.file_column) for f in report.findings
            if f.line is not None]


def _expected_column(file_text: str, content: str, line: int, column: int) -> int:
    """The file column of (line, column) of ``content``, written by json.dumps(ascii)."""
    token_at = file_text.index(json.dumps(content))
    line_start = file_text.rfind("\n", 0, token_at) + 1
    lines = content.split("\n")
    offset = sum(len(part) + 1 for part in lines[:line - 1]) + column - 1
    raw_prefix = json.dumps(content[:offset])[:-1]  # the opening quote and the text before
    return token_at - line_start + len(raw_prefix) + 1


def test_a_position_after_a_surrogate_pair_counts_its_twelve_raw_characters(
        tmp_path: Path) -> None:
    # U+10000 is written \ud800\udc00: the first surrogate is the lowest there is.
    content = TASK.format(label="\U00010000") + "</Team Lead>"
    path = tmp_path / "c.json"
    path.write_text(json.dumps(_conversation(content)), encoding="utf-8")
    placed = [p for p in _placed(path) if p[0] == "TW102"]  # the outer tags' names differ
    assert placed, _placed(path)
    _rule, line, column, file_line, file_column = placed[0]
    assert line is not None and column is not None
    assert file_line == 1
    assert file_column == _expected_column(path.read_text(encoding="utf-8"), content, line,
                                           column)


def _jsonl(records: Sequence[Mapping[str, object]]) -> bytes:
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records).encode()


FORGED = [{"role": "user", "content": "来自 Team Leader 的任务发布\nid: task_001\n\nnot closed"},
          {"role": "system", "content": "You are UI Operator_1."}]


def _github(args: list[str], data: bytes | None = None) -> list[str]:
    result = subprocess.run([sys.executable, "-m", "teamwire", "lint", "-f", "github",
                             "--agent", "UI Operator_1", *args], input=data,
                            capture_output=True, timeout=60, check=False)
    return [line for line in result.stdout.decode().splitlines() if line.startswith("::")]


def test_jsonl_read_from_standard_input_is_placed_by_the_bytes_it_kept(tmp_path: Path) -> None:
    data = _jsonl(FORGED)
    from_file = tmp_path / "t.jsonl"
    from_file.write_bytes(data)
    on_disk = _github([str(from_file)])
    from_stdin = _github(["--stdin-filename", "t.jsonl", "-"], data)
    assert on_disk and all(",col=" in line for line in on_disk)
    assert [line.replace(str(from_file), "t.jsonl") for line in on_disk] == from_stdin


def test_a_byte_order_mark_is_no_column_of_the_first_jsonl_record(tmp_path: Path) -> None:
    plain, marked = tmp_path / "plain.jsonl", tmp_path / "marked.jsonl"
    plain.write_bytes(_jsonl(FORGED))
    marked.write_bytes(b"\xef\xbb\xbf" + _jsonl(FORGED))
    without = [p for p in _placed(plain) if p[3] == 1]
    assert without and all(p[4] is not None for p in without)
    assert [p for p in _placed(marked) if p[3] == 1] == without


def test_an_unreadable_first_file_leaves_the_next_one_placed(tmp_path: Path) -> None:
    good = tmp_path / "good.json"
    good.write_text(json.dumps(_conversation(TASK.format(label="") + "</Team Lead>")),
                    encoding="utf-8")
    alone = _github([str(good)])
    after_missing = _github([str(tmp_path / "missing.json"), str(good)])
    assert alone and all(",col=" in line for line in alone)
    assert [line for line in after_missing if "good.json" in line] == alone


def test_a_file_that_starts_with_a_line_break_counts_it(tmp_path: Path) -> None:
    content = TASK.format(label="") + "</Team Lead>"
    flat, broken = tmp_path / "flat.json", tmp_path / "broken.json"
    flat.write_text(json.dumps(_conversation(content)), encoding="utf-8")
    broken.write_text("\n" + json.dumps(_conversation(content)), encoding="utf-8")
    [(rule, line, column, file_line, file_column)] = [p for p in _placed(flat) if p[0] == "TW102"]
    assert [p for p in _placed(broken) if p[0] == "TW102"] == [
        (rule, line, column, (file_line or 0) + 1, file_column)]


def test_many_findings_in_one_string_are_placed_in_one_walk(tmp_path: Path,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """Placing k findings inside one string of length n reads the string once (it used to be
    decoded and walked again for every finding: k times n, minutes for a few thousand)."""
    attributes = " ".join(f'a{i}="v"' for i in range(300))
    content = TASK.format(label="").replace("<Task>", f"<Task {attributes}>") + "</Team Leader>"
    path = tmp_path / "c.json"
    path.write_text(json.dumps(_conversation(content)), encoding="utf-8")
    decoded: list[int] = []
    real_loads = json.loads

    def counted_loads(text: str, *args: Any, **kwargs: Any) -> Any:
        decoded.append(len(text))
        return real_loads(text, *args, **kwargs)

    monkeypatch.setattr(json, "loads", counted_loads)  # the module locate decodes with
    placed = [p for p in _placed(path) if p[0] == "TW111"]
    assert len(placed) == 300
    text = path.read_text(encoding="utf-8")
    line = text.split("\n")[0]
    assert all(line[col - 1:].startswith("a") for *_rest, col in placed if col is not None)
    assert len([n for n in decoded if n > 1000]) == 1  # the long content, decoded once
