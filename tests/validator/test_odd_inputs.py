"""Odd inputs the linter once mishandled, each pinned to what it must do."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conformance.sources.transcripts.builders import small_session

from teamwire.validator import LintOptions, lint_bytes, lint_file
from teamwire.validator.locate import with_file_lines

BOM = b"\xef\xbb\xbf"
BAD_ID_LINE = ("来自 UI Operator_1 的提问\nid:ask_uio_001\n\n<UI Operator_1>\n<Ask>\nWhich shade?\n"
               "</Ask>\n</UI Operator_1>")


@pytest.mark.parametrize("name", [[], {}, 7, None])
def test_a_function_name_that_is_no_string_is_a_finding(name: object) -> None:
    conversation = [{"role": "assistant", "content": "", "tool_calls": [
        {"id": "c", "type": "function", "function": {"name": name, "arguments": "{}"}}]}]
    data = json.dumps(conversation).encode()
    as_array = lint_bytes(data, "x.json")
    as_lines = lint_bytes(json.dumps(conversation[0]).encode() + b"\n", "x.jsonl", jsonl=True)
    assert [(f.rule, f.index) for f in as_array.findings if f.rule == "TW004"] == [("TW004", 0)]
    assert [(f.rule, f.index, f.message) for f in as_array.findings] == \
        [(f.rule, f.index, f.message) for f in as_lines.findings]


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


def test_a_tool_call_id_that_is_no_string_beside_a_termination_is_a_finding() -> None:
    bundle = small_session()
    leader = bundle["agents"]["Team Leader"]["messages"]
    leader.append({"role": "tool", "tool_call_id": [], "content": "{}"})
    report = lint_bytes(json.dumps(bundle).encode(), "b.json")
    assert [(f.rule, f.index) for f in report.findings] == [("TW004", len(leader) - 1)]


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
