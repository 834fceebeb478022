"""``teamwire lint`` used as CI uses it: positions, output formats and exit codes, seen from outside."""

from __future__ import annotations

import json
import os
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from teamwire import schemas
from teamwire.cli import main
from teamwire.validator import LintReport, lint_bytes
from teamwire.validator.locate import with_file_lines

FORMATS = ("text", "json", "sarif", "github", "gitlab", "junit")
ESCAPES = "\x1b[2J\x1b]0;title\x07"


def run(*args: str, stdin: bytes | None = None) -> tuple[int, str]:
    result = CliRunner().invoke(main, ["lint", *args], input=stdin)
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    return result.exit_code, result.output


def envelope(sender: str, content: str, *, label: str = "任务发布", tag: str = "Task",
             id_: str = "task_001", open_tag: str | None = None) -> str:
    inner = open_tag if open_tag is not None else f"<{tag}>"
    return (f"来自 {sender} 的{label}\nid: {id_}\n\n<{sender}>\n{inner}\n{content}\n</{tag}>\n"
            f"</{sender}>")


def conversation(*user: str) -> list[dict[str, Any]]:
    return [{"role": "system", "content": "s"}, *({"role": "user", "content": c} for c in user)]


def write(path: Path, value: Any, indent: int | None = None) -> str:
    path.write_text(json.dumps(value, ensure_ascii=False, indent=indent), encoding="utf-8")
    return str(path)


def json_findings(*args: str) -> list[dict[str, Any]]:
    _code, out = run("-f", "json", *args)
    data = json.loads(out)
    assert schemas.validate("lint-findings", data) == []
    findings: list[dict[str, Any]] = data["findings"]
    return findings


# -- positions ---------------------------------------------------------------------------------


def test_columns_count_code_points_after_emoji_cjk_and_in_crlf_content(tmp_path: Path) -> None:
    emoji = envelope("Team Leader", "hi", open_tag='<Task a="日🙂" 🙂b="2">')
    crlf = envelope("Team Leader", "hi", id_="task_002").replace("\n", "\r\n")
    messages = conversation(emoji, crlf)
    found = [f for f in json_findings(write(tmp_path / "c.json", messages, indent=2))
             if f["rule"] == "TW101"]
    # <Task a="日🙂" is 13 code points; the second 🙂 is the 14th
    assert (found[0]["index"], found[0]["line"], found[0]["column"]) == (1, 5, 14)
    # in CRLF content, a line is what ends in LF, and the column points at a CR
    content = messages[2]["content"].split("\n")
    assert found[1]["index"] == 2
    assert content[found[1]["line"] - 1][found[1]["column"] - 1] == "\r"


def test_file_lines_of_a_pretty_bundle_and_of_jsonl(tmp_path: Path) -> None:
    bad = envelope("Team Leader", "x", tag="Task").replace("</Task>", "</Tsak>")
    messages = conversation("hello", bad)
    pretty = write(tmp_path / "p.json", messages, indent=2)
    lines = (tmp_path / "p.jsonl")
    lines.write_text("\n".join(json.dumps(m, ensure_ascii=False) for m in messages) + "\n",
                     encoding="utf-8")
    for fmt, expected in (("github", "line=12,"), ("text", "p.json:12: ? #2 7:3: TW102")):
        assert expected in run("-f", fmt, pretty)[1]
    assert "p.jsonl:3: ? #2 7:3: TW102" in run(str(lines))[1]
    text = Path(pretty).read_text(encoding="utf-8").splitlines()
    assert text[11].lstrip().startswith('"content": "来自 Team Leader')


# -- formats -----------------------------------------------------------------------------------


def hostile(tmp_path: Path) -> str:
    name = f"Bad{ESCAPES}Name_1"
    content = envelope(name, f"q{ESCAPES}\u202eevil\x0b", label="提问", tag="Ask",
                       id_="ask_bn_001")
    broken = envelope(name, "x", label="提问", tag="Ask", id_="ask_bn_002",
                      open_tag=f'<Ask a{ESCAPES}="1">')
    return write(tmp_path / "hostile.json", {"teamwire": "1.0", "agents": {
        "Team Leader": {"role_id": "team-leader", "messages": []},
        name: {"role_id": "bad", "agent_id": 1, "messages": [
            {"role": "user", "content": content}, {"role": "user", "content": broken}]}}})


def test_text_output_never_prints_terminal_control_characters(tmp_path: Path) -> None:
    code, out = run(hostile(tmp_path))
    assert code == 1
    assert not any(ch in out for ch in "\x1b\x07\x0b\u202e"), out
    assert "Bad␛[2J␛]0;title␇Name_1" in out


def test_github_annotations_never_carry_control_characters(tmp_path: Path) -> None:
    out = run("-f", "github", hostile(tmp_path))[1]
    assert not any(ch in out for ch in "\x1b\x07\x0b\u202e"), out
    assert all(line.startswith("::") for line in out.splitlines())


def test_the_caret_stands_under_the_character_after_zero_width_ones(tmp_path: Path) -> None:
    # e + combining acute twice, a zero-width space, then a tab the parser stops at
    open_tag = '<Task a="e\u0301e\u0301\u200b" \tb="1">'
    path = write(tmp_path / "z.json", conversation(envelope("Team Leader", "hi",
                                                            open_tag=open_tag)))
    rows = run(path)[1].splitlines()
    source, caret = rows[2], rows[3]
    assert source.endswith('<Task a="e\u0301e\u0301\u200b"  b="1">')
    assert caret == "   | " + " " * len('<Task a="ee" ') + "^"


def test_every_format_is_well_formed_with_hostile_and_odd_inputs(tmp_path: Path) -> None:
    odd = tmp_path / "odd dir, a:b 日本"
    odd.mkdir()
    write(odd / "x%0A.json", [{"role": "user", "content": "来自 X\x01_1 的提问\nid: \ufffe\x00"}])
    (odd / "broken 🙂.jsonl").write_text('{"role": "user", "content": "🙂", }\n',
                                        encoding="utf-8")
    paths = [hostile(tmp_path), str(odd)]
    codes = set()
    for fmt in FORMATS:
        code, out = run("-f", fmt, *paths)
        codes.add(code)
        if fmt == "json":
            assert schemas.validate("lint-findings", json.loads(out)) == []
        elif fmt == "sarif":
            assert json.loads(out)["runs"][0]["results"]
        elif fmt == "junit":
            ET.fromstring(out.encode("utf-8"))
        elif fmt == "github":
            assert "odd dir%2C a%3Ab 日本/x%250A.json" in out
    assert codes == {1}


def test_file_names_that_are_not_utf8_are_reported_in_every_format(tmp_path: Path) -> None:
    (tmp_path / "d").mkdir()
    with open(os.path.join(os.fsencode(tmp_path / "d"), b"\xff x.json"), "w") as handle:
        handle.write("[1")
    with open(os.path.join(os.fsencode(tmp_path / "d"), b"\xfe.json"), "w") as handle:
        handle.write('[{"role": "robot"}]')
    # A dangling link inside the searched directory (one leaving it is not followed at all).
    os.symlink(os.fsencode(tmp_path / "d" / "nowhere"), os.fsencode(tmp_path / "d") + b"/\xfd.json")
    for fmt in FORMATS:
        out = tmp_path / f"report.{fmt}"
        assert run("-f", fmt, "-o", str(out), str(tmp_path / "d"))[0] == 2
        report = out.read_text(encoding="utf-8")
        assert "\ufffd" in report or "%FF" in report
        if fmt == "sarif":
            uris = [r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
                    for r in json.loads(report)["runs"][0]["results"]]
            assert list(dict.fromkeys(uri.rsplit("/", 1)[-1] for uri in uris)) == [
                "%FD.json", "%FE.json", "%FF%20x.json"]


def test_standard_input_named_like_a_file_takes_no_lines_from_that_file(tmp_path: Path) -> None:
    on_disk = write(tmp_path / "t.json", conversation("a", "b", "c"), indent=2)
    linted = json.dumps([{"role": "nobody", "content": "x"}]).encode()
    report = LintReport([lint_bytes(linted, on_disk)])
    with_file_lines(report.files, stdin_name=on_disk)
    assert report.findings and all(f.file_line is None for f in report.findings)
    with_file_lines(report.files)  # the file on disk, which was not what was linted
    assert any(f.file_line is not None for f in report.findings)


# -- exit codes --------------------------------------------------------------------------------


def test_exit_codes(tmp_path: Path) -> None:
    clean = write(tmp_path / "clean.json", conversation("hello"))
    broken = write(tmp_path / "broken.json", conversation(envelope("Team Leader", "x", tag="Tsk",
                                                                   open_tag="<Task>")))
    assert run(clean)[0] == 0
    assert run(broken)[0] == 1
    assert run("--exit-zero", broken)[0] == 0
    assert run("--exit-zero", broken, str(tmp_path / "missing.json"))[0] == 2
    assert run("-", stdin=b"")[0] == 1  # an empty document is not JSON
    assert run("--stdin-filename", "s.jsonl", "-", stdin=b"")[0] == 0
