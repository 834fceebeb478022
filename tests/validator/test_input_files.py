"""Files and bytes that are not transcripts, or are transcripts in an odd form: clear
findings with positions and the documented exit codes. Malformed JSON and UTF-8 are placed by
line and column; a byte order mark moves no column and hides no record; a duplicated member is
placed where the kept value is and a missing one on the object that lacks it; a blank line,
however long, is no record of JSON Lines."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from teamwire.cli import main
from teamwire.validator import Linter, LintOptions, lint_bytes, lint_file, lint_value
from teamwire.validator.locate import with_file_lines

BOM = b"\xef\xbb\xbf"
BAD_ID_LINE = ("来自 UI Operator_1 的提问\nid:ask_uio_001\n\n<UI Operator_1>\n<Ask>\nWhich shade?\n"
               "</Ask>\n</UI Operator_1>")


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


def placed(tmp_path: Path, name: str, data: bytes) -> list[tuple[str, int | None, int | None]]:
    path = tmp_path / name
    path.write_bytes(data)
    report = lint_file(str(path))
    with_file_lines([report])
    return [(f.rule, f.file_line, f.file_column) for f in report.findings if f.rule == "TW101"]


def test_a_byte_order_mark_is_no_column(tmp_path: Path) -> None:
    data = json.dumps([{"role": "user", "content": BAD_ID_LINE}], ensure_ascii=False).encode()
    plain = placed(tmp_path, "plain.json", data)
    marked = placed(tmp_path, "marked.json", BOM + data)
    assert plain == marked
    column = plain[0][2]
    # The id line lacks its space: the error is at the id's first character, after 'id:'.
    assert column is not None and data.decode()[column - 4:].startswith("id:ask_uio_001")



def test_a_duplicated_member_is_placed_where_the_kept_value_is(tmp_path: Path) -> None:
    content = json.dumps(BAD_ID_LINE, ensure_ascii=False)
    text = ('[\n {"role": "user", "content": "hello"},\n {"role": "user",\n'
            f'  "content": "short",\n  "content": {content}}}\n]')
    assert placed(tmp_path, "dup.json", text.encode()) == [("TW101", 5, text.splitlines()[4]
                                                            .index("id:") + len("id:") + 1)]



def test_a_byte_order_mark_does_not_hide_the_first_record_from_inference(tmp_path: Path) -> None:
    lines = [
        {"role": "assistant", "content": "", "tool_calls": [{"id": "c1", "type": "function",
         "function": {"name": "create_sub_agent", "arguments": json.dumps(
             {"agent_id": 1, "role_id": "ui-operator", "task": "Design."})}}]},
        {"role": "tool", "tool_call_id": "c1", "content": json.dumps(
            {"success": True, "agent_id": 1, "role_id": "ui-operator",
             "display_name": "UI Operator_1", "task_id": "task_001"})},
    ]
    data = "".join(json.dumps(m) + "\n" for m in lines).encode()
    for name, body in (("plain.jsonl", data), ("marked.jsonl", BOM + data)):
        path = tmp_path / name
        path.write_bytes(body)
        assert [f.rule for f in lint_file(str(path)).findings] == [], name



def test_a_long_blank_line_is_no_record(tmp_path: Path) -> None:
    path = tmp_path / "c.jsonl"
    path.write_text('{"role": "user", "content": "hi"}\n' + " " * 50 + "\n"
                    '{"role": "system", "content": 5}\n', encoding="utf-8")
    report = lint_file(str(path), LintOptions(max_record_bytes=40, agent="UI Operator_1"))
    assert report.messages == 2
    assert [(f.rule, f.index) for f in report.findings] == [("TW004", 1)]
    # Still skipped with TW008 when it holds anything but white space.
    path.write_text('{"role": "user", "content": "hi"}\n' + " " * 49 + "x\n", encoding="utf-8")
    report = lint_file(str(path), LintOptions(max_record_bytes=40, agent="UI Operator_1"))
    assert [(f.rule, f.index) for f in report.findings] == [("TW008", 1)]



def test_a_missing_member_is_placed_on_the_object_that_lacks_it(tmp_path: Path) -> None:
    path = tmp_path / "b.json"
    path.write_text('{\n "teamwire": "1.0"\n}', encoding="utf-8")
    report = lint_file(str(path))
    with_file_lines([report])
    assert [(f.rule, f.file_line, f.message.startswith("bundle has no 'agents'"))
            for f in report.findings] == [("TW003", 1, True)]
    path.write_text('{\n "teamwire": "1.0",\n "agents": {"Team Leader": {\n  "role_id": '
                    '"team-leader",\n  "messages": [\n   {"role": "user"}]}}}', encoding="utf-8")
    report = lint_file(str(path))
    with_file_lines([report])
    assert [(f.rule, f.pointer, f.file_line) for f in report.findings] == [
        ("TW004", "/agents/Team Leader/messages/0/content", 6)]
