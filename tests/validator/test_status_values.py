"""Status values in the results of the status tools must name a routing state
(TW-TOOL-015, TW-TOOL-016; rule TW416).

``get_sub_agent_status`` carries the status at the top of its result,
``list_active_sub_agents`` one per listed agent; a value that is no routing state
(``sleeping``) is reported for the tool and the message that holds it, with the states
the tool may report.
"""

from __future__ import annotations

import json
from typing import Any

from teamwire.envelope import Profile
from teamwire.validator import LintOptions, lint_value

TL, UIO = "Team Leader", "UI Operator_1"
AGENT = {"agent_id": 1, "role_id": "ui-operator", "display_name": UIO}


def _call(n: int, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {"role": "assistant", "content": None, "tool_calls": [
        {"id": f"c{n}", "type": "function",
         "function": {"name": name, "arguments": json.dumps(arguments)}}]}


def _result(n: int, value: dict[str, Any]) -> dict[str, Any]:
    return {"role": "tool", "tool_call_id": f"c{n}", "content": json.dumps(value)}


def _status_findings(conversation: list[dict[str, Any]]) -> list[tuple[str, str | None, int | None]]:
    report = lint_value(conversation, "case.json",
                        LintOptions(profile=Profile.STRICT, agent=TL))
    return [(f.message, f.pointer, f.index) for f in report.findings if f.rule == "TW416"]


START = [{"role": "system", "content": "You lead."}, {"role": "user", "content": "go"}]


def test_a_status_of_get_sub_agent_status_that_is_no_state_is_reported() -> None:
    conversation = [*START, _call(1, "get_sub_agent_status", {"agent_id": 1}),
                    _result(1, {"success": True, **AGENT, "status": "sleeping"}),
                    {"role": "assistant", "content": "done"}]
    assert _status_findings(conversation) == [
        ("get_sub_agent_status: status 'sleeping' is not one of completed, idle, running, "
         "terminated, waiting", "/3/content", 3)]


def test_a_valid_status_of_get_sub_agent_status_is_not_reported() -> None:
    conversation = [*START, _call(1, "get_sub_agent_status", {"agent_id": 1}),
                    _result(1, {"success": True, **AGENT, "status": "terminated"}),
                    {"role": "assistant", "content": "done"}]
    assert _status_findings(conversation) == []


def test_a_listed_status_that_is_no_state_is_reported() -> None:
    conversation = [*START, _call(1, "list_active_sub_agents", {}),
                    _result(1, {"success": True, "agents": [
                        {**AGENT, "status": "dozing", "summary": ""}]}),
                    {"role": "assistant", "content": "done"}]
    assert _status_findings(conversation) == [
        ("list_active_sub_agents: status 'dozing' is not one of completed, idle, running, "
         "waiting", "/3/content", 3)]
