"""Replies a router must drop (TW-PROF-037) as the harness sees them: a released dropped reply
counts as consumed in the numbering of the agent's later calls (TW-CERT-022), whatever the
router did with the request (a closed connection, a cancelled in-process call), and the
checks judge what follows it: the next call goes on from what the dropped call held, and a
router that keeps the reply, answers its calls or delivers its text fails dropped-replies."""

from __future__ import annotations

import asyncio
import json
import socket
from typing import Any

import pytest

from teamwire.conformance.checks import Status, Verdict, check_run
from teamwire.conformance.endpoint import ModelCall, ModelEndpoint
from teamwire.conformance.inprocess import InProcessRouter, ScriptedModel
from teamwire.conformance.run_checks import RUN_CHECKS
from teamwire.conformance.runner import Run
from teamwire.conformance.scenario import Expectation, Reply, Scenario
from teamwire.envelope import Envelope, render

LEADER, OPERATOR = "Team Leader", "UI Operator_1"
TOKENS = {"[tw:leader]": LEADER, "[tw:uio1]": OPERATOR}
DROPPED_REPLY = Reply("Half of the form is drawn.",
                      (("call_uio_1", "ask_master", '{"question": "Which colour?"}'),),
                      dropped=True)
SCRIPTS = {LEADER: (Reply("Waiting."),),
           OPERATOR: (DROPPED_REPLY, Reply("The form is designed."), Reply("Again."))}
TASK = render(Envelope(LEADER, "任务发布", "task_001", "Task", "Design the form. [tw:uio1]", ()))
OPENING = [{"role": "system", "content": "You are UI Operator_1."},
           {"role": "user", "content": TASK}]
MESSAGE = {"role": "user", "content": render(Envelope(LEADER, "消息", "msg_tl_001", "Message",
                                                      "Design the sign-in form instead.", ()))}
KEPT = {"role": "assistant", "content": DROPPED_REPLY.content,
        "tool_calls": [{"id": "call_uio_1", "type": "function",
                        "function": {"name": "ask_master",
                                     "arguments": '{"question": "Which colour?"}'}}]}


def _body(*messages: dict[str, Any]) -> dict[str, Any]:
    return {"model": "m", "messages": list(messages)}


# -- numbering (TW-CERT-022) ---------------------------------------------------------------


def test_the_call_after_a_released_dropped_reply_asks_for_the_next_reply() -> None:
    endpoint = ModelEndpoint(TOKENS, SCRIPTS)
    first = endpoint.receive(_body(*OPENING), "")
    assert first is not None and first.number == 1
    endpoint.release(first)
    after = endpoint.receive(_body(*OPENING, MESSAGE), "")
    assert after is not None and after.number == 2
    endpoint.release(after)
    assert after.reply == SCRIPTS[OPERATOR][1]
    later = endpoint.receive(_body(*OPENING, MESSAGE, {"role": "assistant", "content": "x"},
                                   MESSAGE), "")
    assert later is not None and later.number == 3
    assert endpoint.unexpected == [] and endpoint.repeats == []


def test_a_dropped_reply_still_held_is_not_consumed() -> None:
    """Until the schedule releases it, a second call with the same history asks for the same
    reply: the count is of released dropped replies only."""
    endpoint = ModelEndpoint(TOKENS, SCRIPTS)
    first = endpoint.receive(_body(*OPENING), "")
    again = endpoint.receive(_body(*OPENING, MESSAGE), "")
    assert first is not None and again is not None
    assert (first.number, again.number) == (1, 1)


def test_a_call_whose_history_kept_the_dropped_reply_asks_for_a_reply_further_on() -> None:
    endpoint = ModelEndpoint(TOKENS, SCRIPTS)
    first = endpoint.receive(_body(*OPENING), "")
    assert first is not None
    endpoint.release(first)
    kept = endpoint.receive(_body(*OPENING, KEPT, MESSAGE), "")
    assert kept is not None and kept.number == 3


def test_releasing_a_dropped_reply_whose_connection_the_router_closed_breaks_nothing() -> None:
    """Over HTTP: the router gives up the request (a stop cancelled the call); the schedule
    still releases the reply, the failed write is no breach, and the next call is numbered
    past the dropped reply."""
    endpoint = ModelEndpoint(TOKENS, SCRIPTS)
    url = endpoint.start()
    host, port = url.removeprefix("http://").removesuffix("/v1").split(":")
    payload = json.dumps(_body(*OPENING)).encode()
    try:
        with socket.create_connection((host, int(port)), timeout=10) as connection:
            connection.sendall(b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\n"
                               b"Content-Type: application/json\r\n"
                               + f"Content-Length: {len(payload)}\r\n\r\n".encode() + payload)
            call = endpoint.wait_for_call(OPERATOR, 1, timeout=10)
            assert call is not None
        endpoint.release(call)  # the connection is closed by now
        assert call.sent.wait(10)
        after = endpoint.receive(_body(*OPENING, MESSAGE), "")
        assert after is not None and after.number == 2
    finally:
        endpoint.close()
    assert endpoint.breaches == [] and endpoint.unexpected == []
    assert [c.number for c in endpoint.calls_of(OPERATOR)] == [1, 2]


def test_an_in_process_call_the_router_cancels_is_no_longer_held_and_is_still_released() -> None:
    """In process: a stop that cancels the task waiting on the model client; the harness no
    longer counts the call as one the router waits on, and the schedule's release of it
    does nothing to the router."""
    scenario = Scenario(name="s", title="t", requirements=("TW-PROF-037",), level="astrion",
                        profile="astrion", request="Go [tw:leader]", tokens=TOKENS,
                        scripts=SCRIPTS, schedule=(), expectations=())
    router = InProcessRouter(scenario, _never_started)
    loop = asyncio.new_event_loop()
    try:
        model = ScriptedModel(router, router.clock)
        before = router.clock.activity.busy

        async def cancel_in_flight() -> ModelCall:
            task = asyncio.ensure_future(model.complete(OPERATOR, [*OPENING], []))
            while not router.held:
                await asyncio.sleep(0)
            [(call, _, _)] = router.held.values()
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
            return call

        call = loop.run_until_complete(cancel_in_flight())
        assert router.held == {}
        assert router.clock.activity.busy == before  # the cancelled task runs again
        router.release(call)
        assert call.reply is DROPPED_REPLY and call.released.is_set()
        after = router.endpoint.receive(_body(*OPENING, MESSAGE), "")
        assert after is not None and after.number == 2
    finally:
        loop.close()
        router.endpoint.close()


async def _never_started(setup: Any) -> object:
    raise AssertionError("the test drives the model client alone")


# -- checks (TW-PROF-037) ------------------------------------------------------------------


def _checked(operator_later: list[dict[str, Any]],
             leader_later: list[dict[str, Any]] | None = None) -> dict[str, Verdict]:
    """The verdicts on a run in which the operator's first reply was dropped and its next
    call held ``operator_later`` after its opening."""
    leader_first = [{"role": "system", "content": "s"}, {"role": "user", "content": "Go [tw:leader]"}]
    scenario = Scenario(
        name="s", title="t", requirements=("TW-PROF-037",), level="astrion", profile="astrion",
        request="Go [tw:leader]", tokens=TOKENS, scripts=SCRIPTS, schedule=(),
        expectations=(Expectation(OPERATOR, 2, (MESSAGE,)),))
    number = 3 if KEPT in operator_later else 2
    calls = [ModelCall(LEADER, 1, [*leader_first, *(leader_later or [])], [], False, 0.0,
                       reply=SCRIPTS[LEADER][0]),
             ModelCall(OPERATOR, 1, [*OPENING], [], False, 0.0, reply=DROPPED_REPLY),
             ModelCall(OPERATOR, number, [*OPENING, *operator_later], [], False, 0.0,
                       reply=SCRIPTS[OPERATOR][number - 1])]
    return {v.check: v for v in check_run(Run(scenario, calls, [], []))}


def test_a_next_call_that_goes_on_from_the_dropped_call_passes() -> None:
    verdicts = _checked([MESSAGE])
    assert verdicts["dropped-replies"].status is Status.PASS
    assert verdicts["append-only"].status is Status.PASS  # no reply follows a dropped one
    assert verdicts[f"{OPERATOR} call 2"].status is Status.PASS  # appended: the Message alone


def test_a_kept_reply_fails_dropped_replies_and_misses_the_next_reply() -> None:
    verdicts = _checked([KEPT, MESSAGE])
    failed = verdicts["dropped-replies"]
    assert failed.status is Status.FAIL
    assert failed.requirements == RUN_CHECKS["dropped-replies"].requirements == ("TW-PROF-037",)
    assert "model call 3 of UI Operator_1 holds the reply to its call 1" in failed.reason
    missing = verdicts[f"{OPERATOR} call 2"]
    assert missing.status is Status.FAIL
    assert "no model call for reply 2 (its calls asked for replies 1, 3)" in missing.reason


def test_a_result_of_a_dropped_call_fails_dropped_replies() -> None:
    result = {"role": "tool", "tool_call_id": "call_uio_1", "content": "Team Leader 的回答：\nNavy."}
    failed = _checked([MESSAGE, result])["dropped-replies"]
    assert failed.status is Status.FAIL
    assert "a result of a tool call of the reply" in failed.reason


def test_the_dropped_text_delivered_to_the_team_leader_fails_dropped_replies() -> None:
    output = {"role": "user", "content": render(Envelope(
        OPERATOR, "任务进度输出", "out_uio_001", "Output", DROPPED_REPLY.content or "", ()))}
    failed = _checked([MESSAGE], [output])["dropped-replies"]
    assert failed.status is Status.FAIL
    assert failed.reason.startswith(
        "Team Leader's conversation holds an envelope of UI Operator_1 (Output)")


def test_other_text_of_the_sub_agent_reaching_the_team_leader_is_no_trace_of_it() -> None:
    output = {"role": "user", "content": render(Envelope(
        OPERATOR, "任务完成汇报", "out_uio_001", "Output", "The form is designed.", ()))}
    assert _checked([MESSAGE], [output])["dropped-replies"].status is Status.PASS


def test_a_scenario_without_dropped_replies_has_no_such_check() -> None:
    reply = Reply("Done.")
    scenario = Scenario(name="s", title="t", requirements=("TW-CERT-007",), level="core",
                        profile="strict", request="Go [tw:leader]", tokens=TOKENS,
                        scripts={LEADER: (reply,)}, schedule=(), expectations=())
    leader = [{"role": "system", "content": "s"}, {"role": "user", "content": "Go [tw:leader]"}]
    run = Run(scenario, [ModelCall(LEADER, 1, leader, [], False, 0.0, reply=reply)], [], [])
    assert "dropped-replies" not in {v.check for v in check_run(run)}
