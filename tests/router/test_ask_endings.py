"""How a pending ask ends when it is not answered: its ask timer, its stored failure, its queue.

TW-ROUTE-017: a pending ask not answered within its timeout fails with ``timeout``; the timer
that fired needs no cancelling, and a timer of an ask that is over changes nothing, even while
its agent waits in a newer ask. TW-ROUTE-020, TW-ROUTE-021: terminating an asker drops its
queue (recorded as dropped, TW-DEL-001) and stops its ask timer; terminating an answerer fails
the asks waiting on it, and only those, with ``agent-terminated``, a message naming it, a
stored failure (TW-DUR-003) and no timer left running. The Team Leader cannot be terminated
(TW-ROUTE-004). An answer taken from natural output has no tool call, hence no acknowledgment.
"""

from __future__ import annotations

import re

import pytest

from teamwire.envelope import MessageType
from teamwire.router import (
    AgentState,
    AgentTerminated,
    AnswerGiven,
    CancelTimer,
    FailToolCall,
    LocalProtocolError,
    MessageSent,
    ModelCallStarted,
    OutputEmitted,
    PersistMessage,
    RoutingCore,
    TimerFired,
    ToolCallBlocked,
    TurnEnded,
)
from teamwire.router.actions import DiscardMessages, PersistAskFailure
from tests.router.helpers import FSE, LEADER, UIO, of_type, team


def _uio_asks_fse(timeout: float | None) -> RoutingCore:
    """UI Operator_1 waits on its ask_other_agent to Full-Stack Engineer_1."""
    core = team()
    core.handle(ToolCallBlocked(UIO, "c-ask", FSE, "ask_uio_001", "which endpoint?",
                                timeout=timeout))
    return core


@pytest.mark.parametrize("timeout", [30.0, None])
def test_terminating_the_answerer_fails_the_ask_and_stops_its_timer(timeout: float | None) -> None:
    core = _uio_asks_fse(timeout)
    actions = core.handle(AgentTerminated(FSE))
    [failed] = of_type(actions, FailToolCall)
    assert (failed.agent, failed.call_id, failed.code) == (UIO, "c-ask", "agent-terminated")
    assert FSE in failed.message
    assert of_type(actions, PersistAskFailure) == [
        PersistAskFailure(UIO, "c-ask", "ask_uio_001", "agent-terminated", failed.message)]
    assert of_type(actions, CancelTimer) == ([CancelTimer(UIO, "c-ask")] if timeout else [])


def test_terminating_an_answerer_leaves_the_asks_waiting_on_others() -> None:
    core = team()
    core.handle(ToolCallBlocked(FSE, "f-ask", LEADER, "ask_fse_001", "which database?",
                                timeout=30.0))
    actions = core.handle(AgentTerminated(UIO))
    assert of_type(actions, FailToolCall) == [] and of_type(actions, CancelTimer) == []
    assert core.record(FSE).ask is not None


@pytest.mark.parametrize("timeout", [30.0, None])
def test_terminating_a_waiting_asker_drops_its_queue_and_stops_its_timer(
        timeout: float | None) -> None:
    core = _uio_asks_fse(timeout)
    [queued] = of_type(core.handle(MessageSent(LEADER, UIO, MessageType.MESSAGE, "hurry")),
                       PersistMessage)
    actions = core.handle(AgentTerminated(UIO))
    assert of_type(actions, DiscardMessages) == [DiscardMessages(UIO, (queued.message.id,))]
    assert of_type(actions, CancelTimer) == ([CancelTimer(UIO, "c-ask")] if timeout else [])
    # its question, read afterwards, can no longer be answered
    core.handle(ModelCallStarted(FSE))
    [failed] = of_type(core.handle(AnswerGiven(FSE, UIO, "ask_uio_001", "/api")), FailToolCall)
    assert failed.code == "agent-terminated"


def test_the_team_leader_cannot_be_terminated() -> None:
    core = team()
    with pytest.raises(LocalProtocolError) as refused:
        core.handle(AgentTerminated(LEADER))
    assert re.search(r"\bTeam Leader\b", str(refused.value))


def test_a_timer_that_fires_fails_its_ask_and_is_not_cancelled() -> None:
    core = _uio_asks_fse(30.0)
    actions = core.handle(TimerFired(UIO, "c-ask"))
    [failed] = of_type(actions, FailToolCall)
    assert (failed.call_id, failed.code) == ("c-ask", "timeout")
    assert of_type(actions, CancelTimer) == []


def test_a_stale_timer_leaves_a_newer_ask_waiting() -> None:
    core = _uio_asks_fse(30.0)
    core.handle(ModelCallStarted(FSE))
    core.handle(AnswerGiven(FSE, UIO, "ask_uio_001", "/api"))
    core.handle(ToolCallBlocked(UIO, "c-ask-2", LEADER, "ask_uio_002", "ship it?", timeout=30.0))
    actions = core.handle(TimerFired(UIO, "c-ask"))  # the first ask's timer, already over
    assert of_type(actions, FailToolCall) == []
    ask = core.record(UIO).ask
    assert ask is not None and ask.call_id == "c-ask-2"


def test_an_answer_taken_from_output_is_stored_without_acknowledgment() -> None:
    core = team()
    core.handle(ToolCallBlocked(LEADER, "l-ask", UIO, "ask_tl_001", "which colour?"))
    core.handle(ModelCallStarted(UIO))
    [answer] = of_type(core.handle(OutputEmitted(UIO, "blue")), PersistMessage)
    assert (answer.message.kind, answer.message.call_id, answer.ack) == (MessageType.ANSWER,
                                                                         None, None)


def test_an_agent_that_does_not_exist_has_nothing_pending() -> None:
    assert team().pending("Designer_1") == ()


@pytest.mark.parametrize("value", ["later", "", "FAIL", None])
def test_unanswered_asks_takes_wait_or_fail_only(value: object) -> None:
    """TW-ROUTE-032: a router refuses a value of unanswered_asks the settings table lacks."""
    with pytest.raises(ValueError, match="unanswered_asks must be 'wait' or 'fail'"):
        RoutingCore(unanswered_asks=value)  # type: ignore[arg-type]


@pytest.mark.parametrize(("setting", "code"), [("wait", None), ("fail", "unanswered")])
def test_a_turn_that_read_an_ask_and_ended_keeps_or_fails_it_as_the_setting_says(
        setting: str, code: str | None) -> None:
    """TW-ROUTE-030: UI Operator_1 reads Full-Stack Engineer_1's question and ends its turn
    with no answer; ``wait`` (the default) leaves the ask pending, ``fail`` fails it."""
    core = team(unanswered_asks=setting)
    core.handle(ToolCallBlocked(FSE, "c-ask", UIO, "ask_fse_001", "Which port?"))
    core.handle(ModelCallStarted(UIO))
    failed = of_type(core.handle(TurnEnded(UIO)), FailToolCall)
    assert [f.code for f in failed] == ([code] if code else [])
    assert (core.state(FSE) is AgentState.WAITING) == (code is None)
