"""Inputs that are not transcripts: clear findings with positions and the documented exit codes."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from teamwire.cli import main
from teamwire.validator import Linter, LintOptions, lint_bytes, lint_file, lint_value


def rules(report: object) -> list[tuple[str, int | None, int | None]]:
    return [(f.rule, f.line, f.column) for f in report.findings]  # type: ignore[attr-defined]


def test_malformed_json_has_line_and_column() -> None:
    report = lint_bytes(b'{\n  "teamwire": "1.0",\n  "agents": {,}\n}', "x.json")
    assert rules(report) == [("TW001", 3, 14)]
    assert report.findings[0].snippet is not None
    assert report.findings[0].snippet.endswith("^")


def test_invalid_utf8_has_position() -> None:
    report = lint_bytes(b'[\n{"role": "user", "content": "\xff"}]', "x.json")
    assert rules(report) == [("TW002", 2, 30)]


def test_wrong_top_level_shapes() -> None:
    for value in (None, 3, "text", {"role": "user"}, {"something": 1}):
        assert [f.rule for f in lint_value(value).findings] == ["TW003"]
    assert {f.rule for f in lint_value({"teamwire": "1.0", "agents": []}).findings} == {"TW003"}
    bundle = {"teamwire": "1.0", "agents": {"Team Leader": {"role_id": "team-leader",
                                                             "messages": {}}}}
    assert [f.rule for f in lint_value(bundle).findings] == ["TW003"]


def test_non_string_and_multimodal_content() -> None:
    options = LintOptions(agent="UI Operator_1")
    report = lint_value([{"role": "user", "content": 5},
                         {"role": "user", "content": [{"type": "image_url"}]},
                         {"role": "tool", "tool_call_id": "c", "content": {"a": 1}}], "x", options)
    assert [(f.rule, f.index) for f in report.findings] == [
        ("TW004", 0), ("TW005", 1), ("TW004", 2), ("TW413", 2)]


def test_jsonl_reports_the_file_line(tmp_path: Path) -> None:
    path = tmp_path / "c.jsonl"
    path.write_bytes(b'\xef\xbb\xbf{"role": "user", "content": "hi"}\n\n'
                     b'{"role": "user", "content": }\n'
                     + '{"role": "user", "content": "[系统通知|x] y"}\n'.encode())
    report = lint_file(str(path), LintOptions(agent="UI Operator_1"))
    assert [(f.rule, f.index, f.file_line) for f in report.findings] == [
        ("TW001", 1, 3), ("TW113", 2, 4)]
    assert report.findings[0].line == 3 and report.findings[0].column == 29
    assert report.messages == 3


def test_binary_garbage_exits_one(tmp_path: Path) -> None:
    path = tmp_path / "garbage.json"
    path.write_bytes(bytes(range(256)) * 4)
    result = CliRunner().invoke(main, ["lint", str(path)])
    assert result.exit_code == 1
    assert "TW00" in result.output


def test_a_100_mb_single_line(tmp_path: Path) -> None:
    big = tmp_path / "big.jsonl"
    with big.open("wb") as out:
        out.write(b'{"role": "user", "content": "')
        chunk = b"x" * (1 << 20)
        for _ in range(100):
            out.write(chunk)
        out.write(b'"}\n{"role": "user", "content": "after"}\n')
    report = lint_file(str(big), LintOptions(agent="UI Operator_1"))
    assert [(f.rule, f.index) for f in report.findings] == [("TW008", 0)]
    assert report.messages == 2
    garbage = tmp_path / "big.json"
    with garbage.open("wb") as out:
        for _ in range(100):
            out.write(b"x" * (1 << 20))
    result = CliRunner().invoke(main, ["lint", str(garbage)])
    assert result.exit_code == 1
    assert "TW001" in result.output and len(result.output) < 2000


def test_empty_input_says_so() -> None:
    for data in (b"", b" \n\t", b"\xef\xbb\xbf"):
        [finding] = lint_bytes(data, "empty.json").findings
        assert (finding.rule, finding.line, finding.column) == ("TW001", 1, 1)
        assert "the input is empty" in finding.message
    # JSON Lines without records is an empty conversation: nothing to check, nobody to name
    # (TW009 is for messages whose owner would change their checks).
    for lines in (b"", b"\n\n"):
        report = lint_bytes(lines, "empty.jsonl", jsonl=True)
        assert report.findings == [] and report.messages == 0
    assert lint_bytes(b"[]", "empty.json").findings == []
    assert [f.rule for f in lint_bytes(b"\n", "one.jsonl", jsonl=True).findings] == []
    said = lint_bytes(b'{"role": "assistant", "content": "Hi."}\n', "one.jsonl", jsonl=True)
    assert [f.rule for f in said.findings] == ["TW009"]


def test_bytes_linted_without_a_name_are_reported_as_standard_input() -> None:
    # What `teamwire lint -` reads has no file name: its report and findings say <stdin>,
    # whether the bytes go through the module's function or a linter of one's own.
    for report in (lint_bytes(b"[{"), Linter().lint_bytes(b"[{")):
        assert report.file == "<stdin>"
        assert [(f.rule, f.file, f.line) for f in report.findings] == [("TW001", "<stdin>", 1)]
