"""Calls that fail without running, and asks that fail, report their error object
(TW-ROUTE-017, TW-ROUTE-018, TW-TOOL-032).

When a turn times out, every tool call of its last reply that has no result yet gets the
common error result ``turn-ended`` (``{"success": false, "error": {"code", "message"}}``),
so the model sees each of its calls answered exactly once. An ask that ends in an error
(here its ask timeout) is reported to the session's listener as a ``tool-error`` with the
same error object the asker's tool message holds.
"""

from __future__ import annotations

import json
from typing import Any

from teamwire.router.runtime import ScriptedAgent, Session, Step, VirtualClock
from teamwire.router.runtime.driver import AgentDriver
from tests.router.helpers import LEADER, UIO, run_to_idle

TURN_ENDED = {"success": False, "error": {
    "code": "turn-ended", "message": "the turn was stopped before this call ran; it did nothing"}}


def _session(leader: list[Step], subs: dict[str, list[Step]], **kwargs: Any) -> Session:
    clock = VirtualClock()

    def drivers(name: str, role_id: str) -> AgentDriver:
        return ScriptedAgent(subs.get(name, []), clock, tag=role_id[:3])

    return Session(leader=ScriptedAgent(leader, clock, tag="tl"), drivers=drivers, clock=clock,
                   **kwargs)


def _tool_messages(session: Session, agent: str) -> list[tuple[str, Any]]:
    return [(m["tool_call_id"], json.loads(m["content"]))
            for m in session.conversations[agent] if m["role"] == "tool"]


def test_calls_left_when_the_turn_times_out_get_the_turn_ended_error() -> None:
    session = run_to_idle(_session(
        [Step(None, (("create_sub_agent", {"agent_id": 1, "role_id": "ui-operator",
                                           "task": "design", "timeout_seconds": 5}),)),
         Step("waiting for the report"),
         # the turn the ask starts outlasts the sub-agent's: the leader never ends it unanswered
         Step("reading", delay=1000)],
        {UIO: [Step(None, (("ask_master", {"question": "which palette?",
                                           "question_id": "ask_uio_001"}),
                           ("list_active_sub_agents", {}),
                           ("ask_master", {"question": "which font?",
                                           "question_id": "ask_uio_002"})))]}))
    assert _tool_messages(session, UIO) == [
        ("call_ui-_1", {"success": False, "error": {
            "code": "timeout",
            "message": "the turn of UI Operator_1 ended: turn stopped after 5 seconds"}}),
        ("call_ui-_2", TURN_ENDED),
        ("call_ui-_3", TURN_ENDED),
    ]


def test_an_ask_that_times_out_is_reported_as_a_tool_error() -> None:
    reported: list[tuple[str, dict[str, Any]]] = []
    session = run_to_idle(_session(
        [Step(None, (("create_sub_agent", {"agent_id": 1, "role_id": "ui-operator",
                                           "task": "design"}),)),
         Step("waiting for reports"), Step("reading", delay=1000)],
        {UIO: [Step(None, (("ask_master", {"question": "which palette?",
                                           "question_id": "ask_uio_001"}),)),
               Step("giving up")]},
        ask_timeout=42.0, listener=lambda kind, data: reported.append((kind, data))))
    [(call_id, result)] = _tool_messages(session, UIO)
    assert call_id == "call_ui-_1"
    assert result["success"] is False and result["error"]["code"] == "timeout"
    errors = [data for kind, data in reported if kind == "tool-error"]
    assert errors == [{"agent": UIO, "tool": "ask_master", "error": result["error"]}]
    assert all(data["agent"] != LEADER for data in errors)
