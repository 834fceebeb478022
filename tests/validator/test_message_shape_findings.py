"""The exact words of findings about a message's shape and place (TW-TOOL-015,
TW-TOOL-016, TW-TYPE-004, TW-TOOL-027; rules TW004, TW203, TW408, TW416).

- content that is not a string names the kind of message and the JSON type it holds;
- an Output (a report) in a sub-agent's conversation: reports go only to the leader;
- a status call whose agent_id names no sub-agent says so with the agent_id alone when no
  role_id was given;
- a listed status that names no routing state is reported also when the result text
  holds a line that looks like an envelope header (the slow path of the result checks).
"""

from __future__ import annotations

import json
from typing import Any

from teamwire.envelope import Profile
from teamwire.validator import LintOptions, lint_value

TL, UIO, FSE = "Team Leader", "UI Operator_1", "Full-Stack Engineer_1"
START = [{"role": "system", "content": "You lead."}, {"role": "user", "content": "go"}]


def _lint(messages: list[dict[str, Any]], agent: str = TL) -> list[tuple[str, str, str | None]]:
    report = lint_value(messages, "conversation.json",
                        LintOptions(profile=Profile.STRICT, agent=agent))
    return [(f.rule, f.message, f.pointer) for f in report.findings]


def _call(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {"role": "assistant", "content": None, "tool_calls": [
        {"id": "c1", "type": "function",
         "function": {"name": name, "arguments": json.dumps(arguments)}}]}


def _result(content: Any) -> dict[str, Any]:
    return {"role": "tool", "tool_call_id": "c1", "content": content}


DONE = {"role": "assistant", "content": "Done."}


def test_assistant_content_that_is_no_string() -> None:
    assert _lint([*START, {"role": "assistant", "content": 5}]) == [
        ("TW004", "content of an assistant message is number, not a string", "/2/content")]


def test_tool_message_content_that_is_no_string() -> None:
    assert _lint([*START, _call("list_agents", {}), _result(7), DONE]) == [
        ("TW004", "content of a tool message is number, not a string", "/3/content")]


def test_an_output_delivered_to_a_sub_agent() -> None:
    output = ("来自 UI Operator_1 的任务进度输出\nid: out_uio_001\n\n<UI Operator_1>\n<Output>\nhi\n"
              "</Output>\n</UI Operator_1>")
    assert _lint([{"role": "system", "content": "You build."},
                  {"role": "user", "content": output}], agent=FSE) == [
        ("TW203", "Output delivered to a sub-agent; reports go only to the Team Leader",
         "/1/content")]


def test_a_status_call_for_an_agent_id_that_names_no_sub_agent() -> None:
    status = {"success": True, "agent_id": 3, "role_id": "ui-operator",
              "display_name": "UI Operator_3", "status": "idle"}
    assert _lint([*START, _call("get_sub_agent_status", {"agent_id": 3}),
                  _result(json.dumps(status)), DONE]) == [
        ("TW408", "get_sub_agent_status targets agent_id 3, which does not exist",
         "/2/tool_calls/0")]


def test_a_wrong_status_beside_a_header_like_summary_is_reported() -> None:
    listed = {"success": True, "agents": [
        {"agent_id": 1, "role_id": "ui-operator", "display_name": UIO, "status": "dozing",
         "summary": "来自 Team Leader 的消息"}]}
    assert _lint([*START, _call("list_active_sub_agents", {}),
                  _result(json.dumps(listed, ensure_ascii=False)), DONE]) == [
        ("TW416", "list_active_sub_agents: status 'dozing' is not one of completed, idle, "
         "running, waiting", "/3/content")]
