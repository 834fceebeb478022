"""The exact tool results the protocol tools return (TW-TOOL-006, TW-TOOL-007, TW-TOOL-008,
TW-TOOL-011, TW-TOOL-012, TW-TOOL-015).

A model reads these results to decide what to do next: the status a new sub-agent has,
why a second create with the same id failed, which agent a message reached, the one-line
summary of each active sub-agent, and why a tool outside the caller's set was refused.
Each field is pinned to its exact value, not merely to its presence.
"""

from __future__ import annotations

import json
from typing import Any

from teamwire.router.runtime import ScriptedAgent, Session, Step, VirtualClock
from teamwire.router.runtime.driver import AgentDriver
from teamwire.router.runtime.tools import summary_of
from tests.router.helpers import LEADER, UIO, run_to_idle

CREATE_UIO = ("create_sub_agent", {"agent_id": 1, "role_id": "ui-operator", "task": "design"})


def _session(leader: list[Step], subs: dict[str, list[Step]]) -> Session:
    clock = VirtualClock()

    def drivers(name: str, role_id: str) -> AgentDriver:
        return ScriptedAgent(subs.get(name, []), clock, tag=role_id[:3])

    return Session(leader=ScriptedAgent(leader, clock, tag="tl"), drivers=drivers, clock=clock)


def _results(session: Session, agent: str) -> dict[str, Any]:
    """The parsed tool results of ``agent`` by tool call id."""
    return {m["tool_call_id"]: json.loads(m["content"])
            for m in session.conversations[agent] if m["role"] == "tool"}


def test_create_send_and_a_second_create_with_the_same_id() -> None:
    session = run_to_idle(_session([Step(None, (
        CREATE_UIO,
        CREATE_UIO,
        ("send_message_to_sub_agent", {"agent_id": 1, "message": "use the blue palette"}),
    ))], {}))
    results = _results(session, LEADER)
    assert results["call_tl_1"] == {"success": True, "agent_id": 1, "role_id": "ui-operator",
                                    "display_name": UIO, "status": "running",
                                    "task_id": "task_001"}
    assert results["call_tl_2"] == {"success": False, "error": {
        "code": "duplicate-id", "message": "ui-operator already has agent_id 1"}}
    assert results["call_tl_3"] == {"success": True, "display_name": UIO,
                                    "message_id": "msg_tl_001", "delivery": "inline"}


def test_the_summary_of_an_active_sub_agent_is_the_first_line_of_its_last_output() -> None:
    session = run_to_idle(_session(
        [Step(None, (CREATE_UIO,)),
         Step(None, (("list_active_sub_agents", {}),), delay=10.0)],
        {UIO: [Step("palette chosen\nblue and white, tested for contrast")]}))
    listed = _results(session, LEADER)["call_tl_2"]
    assert listed == {"success": True, "agents": [
        {"agent_id": 1, "role_id": "ui-operator", "display_name": UIO,
         "status": "completed", "summary": "palette chosen"}]}


def test_a_summary_ends_at_the_first_lf_or_cr_and_after_120_code_points() -> None:
    """TW-TOOL-015: only LF and CR end the summary's line (not U+2028, U+0085 or a form
    feed, which some languages' line splitters also break at), and it holds at most 120
    code points."""
    assert summary_of("") == ""
    assert summary_of("one\rtwo\nthree") == "one"
    assert summary_of("one\ntwo\rthree") == "one"
    assert summary_of("a\u2028b\x85c\x0cd") == "a\u2028b\x85c\x0cd"
    assert summary_of("\nlater") == ""
    assert summary_of("界" * 130) == "界" * 120
    assert summary_of("x" * 119 + "\ny") == "x" * 119


def test_a_forbidden_tool_names_the_tool_and_the_caller() -> None:
    """TW-TOOL-006."""
    session = run_to_idle(_session([Step(None, (CREATE_UIO,))],
                                   {UIO: [Step(None, (("create_sub_agent", {}),))]}))
    assert _results(session, UIO)["call_ui-_1"] == {"success": False, "error": {
        "code": "forbidden-tool", "message": "'create_sub_agent' is not a tool of UI Operator_1"}}
