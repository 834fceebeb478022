"""TW-PROF-025: under astrion, each stop_sub_agent that names a sub-agent excuses one place
where its calls were left open; failed stops and other agents excuse nothing."""

from __future__ import annotations

from typing import Any

from conformance.sources.transcripts.builders import Agent, SessionBuilder

from teamwire.envelope import Profile
from teamwire.validator import LintOptions, lint_value

ASTRION = LintOptions(profile=Profile.ASTRION)


def _stop(b: SessionBuilder, target: Agent, *, fails: bool = False) -> None:
    call_id = b.call(b.leader, "stop_sub_agent", {"agent_id": target.agent_id})
    b.result(b.leader, call_id, {"success": False, "error": {
        "code": "agent-terminated", "message": "gone"}} if fails else {
        "success": True, "agent_id": target.agent_id, "role_id": target.role_id,
        "display_name": target.name, "status": "idle"})


def _left_open(b: SessionBuilder, agent: Agent, times: int) -> None:
    # Each time: the agent asks, is left without a result, and a message starts its next turn.
    for n in range(times):
        b.ask_master(agent, f"Question {n}?")
        b.message(agent, f"Go on ({n}).")


def _open_call_findings(bundle: dict[str, Any]) -> list[tuple[str, str | None]]:
    return [(f.rule, f.agent) for f in lint_value(bundle, options=ASTRION).findings]


def test_one_stop_excuses_one_place() -> None:
    b = SessionBuilder()
    ui = b.create("ui-operator", "UI Operator", 1, "Design the palette.")
    _left_open(b, ui, 2)
    _stop(b, ui)
    b.say(ui, "Done.")
    assert _open_call_findings(b.bundle()) == [("TW411", ui.name)]


def test_two_stops_excuse_two_places() -> None:
    b = SessionBuilder()
    ui = b.create("ui-operator", "UI Operator", 1, "Design the palette.")
    _left_open(b, ui, 2)
    _stop(b, ui)
    _stop(b, ui)
    b.say(ui, "Done.")
    assert _open_call_findings(b.bundle()) == []


def test_a_failed_stop_or_a_stop_of_another_agent_excuses_nothing() -> None:
    b = SessionBuilder()
    ui = b.create("ui-operator", "UI Operator", 1, "Design the palette.")
    api = b.create("full-stack-engineer", "Full-Stack Engineer", 1, "Build the API.")
    _left_open(b, ui, 1)
    _stop(b, ui, fails=True)
    b.call(b.leader, "stop_sub_agent", {"agent_id": 1, "role_id": "full-stack-engineer"})
    b.result(b.leader, b.leader.messages[-1]["tool_calls"][0]["id"], {
        "success": True, "agent_id": 1, "role_id": "full-stack-engineer",
        "display_name": api.name, "status": "idle"})
    b.say(ui, "Done.")
    b.say(api, "Done.")
    assert _open_call_findings(b.bundle()) == [("TW411", ui.name)]


def test_a_result_after_the_stop_is_still_late() -> None:
    # The stop excused the missing result; a result that comes after all, after the next
    # message, is a late one (TW411), not a silent one.
    b = SessionBuilder()
    ui = b.create("ui-operator", "UI Operator", 1, "Design the palette.")
    ask = b.ask_master(ui, "Which blue?")
    _stop(b, ui)
    b.message(ui, "Go on.")
    b.result(ui, ask.call_id, {"success": False, "error": {"code": "cancelled",
                                                           "message": "stopped"}})
    b.say(ui, "Done.")
    found = lint_value(b.bundle(), options=ASTRION).findings
    assert [(f.rule, f.agent, f.index) for f in found] == [("TW411", ui.name, 2)]
    assert "gets its result only at message 4" in found[0].message


def test_two_stops_excuse_two_places_not_three() -> None:
    b = SessionBuilder()
    ui = b.create("ui-operator", "UI Operator", 1, "Design the palette.")
    _left_open(b, ui, 3)
    _stop(b, ui)
    _stop(b, ui)
    b.say(ui, "Done.")
    assert _open_call_findings(b.bundle()) == [("TW411", ui.name)]


def test_an_ordinary_tool_call_a_stop_ended_that_gets_its_result_late() -> None:
    # Not only protocol calls: a read_file call the stop cut off, whose result comes after the
    # next message, is late (TW411) at the call, with the tool's name.
    b = SessionBuilder()
    ui = b.create("ui-operator", "UI Operator", 1, "Design the palette.")
    call_id = b.call(ui, "read_file", {"path": "styles.css"})
    call_at = len(ui.messages) - 1
    _stop(b, ui)
    b.message(ui, "Go on.")
    b.result(ui, call_id, "body { color: #333; }")
    late_at = len(ui.messages) - 1
    b.say(ui, "Done.")
    found = [f for f in lint_value(b.bundle(), options=ASTRION).findings if f.agent == ui.name]
    assert [(f.rule, f.index, f.message) for f in found] == [
        ("TW411", call_at, f"tool call {call_id!r} (read_file) gets its result only at message "
         f"{late_at}, after a later message")]
