"""The check that every tool call gets one result (TW-CERT-008) under profile astrion: each
stop_sub_agent of the Team Leader that named a sub-agent and succeeded excuses one reply of
that sub-agent left without results (TW-PROF-025, TW-PROF-035), and nothing more."""

from __future__ import annotations

import json
from typing import Any

from teamwire.conformance.astrion_stops import stops_by_agent
from teamwire.conformance.checks import Status, _one_result_each
from teamwire.conformance.endpoint import ModelCall

TL, UIO, UIO2, FSE = "Team Leader", "UI Operator_1", "UI Operator_2", "Full-Stack Engineer_1"


def asks(call_id: str) -> dict[str, Any]:
    return {"role": "assistant", "content": None, "tool_calls": [
        {"id": call_id, "type": "function",
         "function": {"name": "ask_master", "arguments": '{"question": "Blue?"}'}}]}


def message(text: str) -> dict[str, Any]:
    return {"role": "user", "content": text}


def stop(call_id: str, succeeded: bool = True, **arguments: Any) -> list[dict[str, Any]]:
    """A stop_sub_agent call of the Team Leader and its result."""
    result = {"success": True} if succeeded else {
        "success": False, "error": {"code": "agent-terminated", "message": "gone"}}
    return [{"role": "assistant", "content": None, "tool_calls": [
                {"id": call_id, "type": "function", "function": {
                    "name": "stop_sub_agent", "arguments": json.dumps(arguments)}}]},
            {"role": "tool", "tool_call_id": call_id, "content": json.dumps(result)}]


def model_call(agent: str, number: int, messages: list[dict[str, Any]]) -> ModelCall:
    return ModelCall(agent, number, [{"role": "system", "content": "."}, *messages], [], False, 0.0)


def left_open(times: int) -> list[ModelCall]:
    """UI Operator_1's calls: each time it asks and a message follows without a result."""
    history: list[dict[str, Any]] = [message("Task")]
    calls = [model_call(UIO, 1, list(history))]
    for n in range(times):
        history += [asks(f"call_{n}"), message(f"Go on ({n}).")]
        calls.append(model_call(UIO, n + 2, list(history)))
    return calls


def verdict(leader: list[dict[str, Any]], times: int, profile: str = "astrion") -> Any:
    by_agent = {TL: [model_call(TL, 1, [message("Request"), *leader])], UIO: left_open(times)}
    return _one_result_each(by_agent, profile)


def test_each_successful_stop_excuses_one_reply_left_open() -> None:
    assert verdict(stop("s1", display_name=UIO), 1).status is Status.PASS
    two = [*stop("s1", display_name=UIO), *stop("s2", agent_id=1)]
    assert verdict(two, 2).status is Status.PASS


def test_a_reply_left_open_beyond_the_stops_breaks_the_stop_requirement() -> None:
    found = verdict(stop("s1", display_name=UIO), 2)
    assert found.status is Status.FAIL
    assert found.requirements == ("TW-CERT-008", "TW-PROF-035")
    assert "call_1" in found.reason


def test_a_failed_stop_or_profile_strict_excuses_nothing() -> None:
    failed = verdict(stop("s1", succeeded=False, display_name=UIO), 1)
    assert (failed.status, failed.requirements) == (Status.FAIL, ("TW-CERT-008",))
    strict = verdict(stop("s1", display_name=UIO), 1, profile="strict")
    assert (strict.status, strict.requirements) == (Status.FAIL, ("TW-CERT-008",))


def test_a_stop_names_its_target_by_display_name_or_by_a_number_one_sub_agent_has() -> None:
    leader = [*stop("s1", display_name="ui operator_1"), *stop("s2", display_name=FSE),
              *stop("s3", agent_id=2), *stop("s4", agent_id=1), *stop("s5", display_name="X_9"),
              *stop("s6", succeeded=False, display_name=FSE)]
    # agent_id 1 is the number of two sub-agents: that stop names neither
    assert stops_by_agent(leader, [UIO, UIO2, FSE]) == {UIO: 1, FSE: 1, UIO2: 1}


def test_a_stop_whose_result_is_not_json_text_did_not_succeed() -> None:
    """A router may send a tool result's content as parts, as null or as text that is not
    JSON: none says the stop succeeded, so none excuses a reply left open."""
    call = stop("s1", display_name=UIO)[0]
    for content in ([{"type": "text", "text": '{"success": true}'}], None, "not json"):
        leader = [call, {"role": "tool", "tool_call_id": "s1", "content": content}]
        assert stops_by_agent(leader, [UIO]) == {}
        assert verdict(leader, 1).status is Status.FAIL
