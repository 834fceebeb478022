"""get_sub_agent_status as the Team Leader's model reads it.

TW-TOOL-016 (the target's identity and routing state, a terminated target included),
TW-TOOL-017 (the further members, named as ``spec/schemas/tool-results.schema.json`` names them:
``waiting_for``, ``pending_messages``, ``statistics`` with ``turns`` and ``tool_calls``,
``recent_output``), TW-TOOL-027 to TW-TOOL-029 (role_id settles an agent_id two roles share),
TW-TOOL-031 (only this tool may target a terminated sub-agent), TW-TOOL-032.
"""

from __future__ import annotations

import json
from typing import Any

from teamwire import schemas
from teamwire.router.runtime import ScriptedAgent, Session, Step, VirtualClock
from teamwire.router.runtime.driver import AgentDriver
from tests.router.helpers import FSE, LEADER, UIO, run_to_idle

UI = {"agent_id": 1, "role_id": "ui-operator"}
FS = {"agent_id": 1, "role_id": "full-stack-engineer"}
QUESTION = "Before choosing colours I need to know whether the brand colour is fixed."


def _run(leader: list[Step], subs: dict[str, list[Step]]) -> Session:
    clock = VirtualClock()

    def drivers(name: str, role_id: str) -> AgentDriver:
        return ScriptedAgent(subs.get(name, []), clock, tag=role_id[:3])

    return run_to_idle(Session(leader=ScriptedAgent(leader, clock, tag="tl"), drivers=drivers,
                               clock=clock), "a sign-up page")


def _result(session: Session, call_id: str) -> dict[str, Any]:
    """The leader's tool result of ``call_id``, parsed (it must be valid against the schema)."""
    found = [m["content"] for m in session.conversations[LEADER]
             if m["role"] == "tool" and m["tool_call_id"] == call_id]
    assert len(found) == 1, (call_id, found)
    data: dict[str, Any] = json.loads(found[0])
    assert schemas.is_valid("tool-results", data), data
    return data


def _members(result: dict[str, Any], expected: dict[str, Any]) -> dict[str, Any]:
    return {key: result.get(key, "<missing>") for key in expected}


def _team_with_a_waiting_ui_operator() -> Session:
    """UI Operator_1 asks the leader and waits (one MESSAGE queued behind the ask);
    Full-Stack Engineer_1 completes, and is then terminated."""
    leader = [
        Step(None, (("create_sub_agent", {**UI, "task": "design the form"}),
                    ("create_sub_agent", {**FS, "task": "build the API"}))),
        Step(None, (("send_message_to_sub_agent", {**UI, "message": "dark mode too"}),   # 3
                    ("get_sub_agent_status", UI),                                        # 4
                    ("get_sub_agent_status", FS),                                        # 5
                    ("terminate_sub_agent", FS),                                         # 6
                    ("get_sub_agent_status", FS),                                        # 7
                    ("get_sub_agent_status", {"agent_id": 1}),                           # 8
                    ("send_message_to_sub_agent", {**FS, "message": "one more thing"}),  # 9
                    ), delay=5.0),
        Step("Waiting for the team."),
    ]
    return _run(leader, {
        UIO: [Step(QUESTION, (("ask_master", {"question": "Is the brand colour fixed?",
                                              "question_id": "ask_uio_001"}),))],
        FSE: [Step("The API is done.")],
    })


def test_status_of_a_waiting_sub_agent_names_what_it_waits_for() -> None:
    """TW-TOOL-016, TW-TOOL-017: a sub-agent waiting on its ask_master, with a MESSAGE queued
    behind it: one turn so far with one tool call, its latest text, the leader awaited."""
    session = _team_with_a_waiting_ui_operator()
    assert _result(session, "call_tl_3")["delivery"] == "queued"
    expected = {"success": True, "agent_id": 1, "role_id": "ui-operator", "display_name": UIO,
                "status": "waiting", "waiting_for": LEADER, "pending_messages": 1,
                "statistics": {"turns": 1, "tool_calls": 1}, "recent_output": QUESTION}
    status = _result(session, "call_tl_4")
    assert _members(status, expected) == expected


def test_status_of_a_completed_sub_agent_waits_for_nobody() -> None:
    """TW-TOOL-017: a completed sub-agent has no ``waiting_for`` and nothing pending; its
    statistics count its one turn and no tool call; its recent output is its completion."""
    session = _team_with_a_waiting_ui_operator()
    expected = {"success": True, "agent_id": 1, "role_id": "full-stack-engineer",
                "display_name": FSE, "status": "completed", "pending_messages": 0,
                "statistics": {"turns": 1, "tool_calls": 0}, "recent_output": "The API is done."}
    status = _result(session, "call_tl_5")
    assert _members(status, expected) == expected
    assert "waiting_for" not in status


def test_a_terminated_sub_agent_still_has_a_status() -> None:
    """TW-TOOL-016, TW-TOOL-031: get_sub_agent_status reaches a terminated sub-agent, which
    every other tool refuses with agent-terminated."""
    session = _team_with_a_waiting_ui_operator()
    expected = {"success": True, "agent_id": 1, "role_id": "full-stack-engineer",
                "display_name": FSE, "status": "terminated"}
    assert _members(_result(session, "call_tl_7"), expected) == expected
    refused = _result(session, "call_tl_9")
    assert refused["success"] is False and refused["error"]["code"] == "agent-terminated"


def test_an_agent_id_two_roles_share_needs_its_role_id() -> None:
    """TW-TOOL-027, TW-TOOL-029: without role_id, agent_id 1 matches both sub-agents (the
    terminated one too): ambiguous-agent-id with both candidates in creation order."""
    session = _team_with_a_waiting_ui_operator()
    error = _result(session, "call_tl_8")["error"]
    assert error["code"] == "ambiguous-agent-id"
    assert error["candidates"] == [
        {"agent_id": 1, "role_id": "ui-operator", "display_name": UIO},
        {"agent_id": 1, "role_id": "full-stack-engineer", "display_name": FSE}]


def test_an_agent_id_of_one_role_needs_no_role_id() -> None:
    """TW-TOOL-027: with one sub-agent of agent_id 2, the agent_id alone names it; an agent_id
    nobody has is unknown-agent."""
    session = _run([
        Step(None, (("create_sub_agent", {"agent_id": 2, "role_id": "ui-operator",
                                          "task": "design"}),)),
        Step(None, (("get_sub_agent_status", {"agent_id": 2}),
                    ("get_sub_agent_status", {"agent_id": 3}),
                    ("get_sub_agent_status", {"agent_id": 2, "role_id": "full-stack-engineer"})),
             delay=5.0),
    ], {"UI Operator_2": [Step("Form designed.")]})
    status = _result(session, "call_tl_2")
    expected = {"success": True, "agent_id": 2, "role_id": "ui-operator",
                "display_name": "UI Operator_2", "status": "completed",
                "statistics": {"turns": 1, "tool_calls": 0}, "recent_output": "Form designed."}
    assert _members(status, expected) == expected
    assert [_result(session, f"call_tl_{n}")["error"]["code"] for n in (3, 4)] \
        == ["unknown-agent", "unknown-agent"]
