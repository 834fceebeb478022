"""Routing rules one by one: answers, cycles, ids, limits, timeouts, termination."""

from __future__ import annotations

import pytest

from teamwire.envelope import MessageType, parse
from teamwire.router import (
    AcknowledgeSend,
    AgentCreated,
    AgentState,
    AgentTerminated,
    AnswerGiven,
    AppendInline,
    CancelTimer,
    DiscardMessages,
    FailToolCall,
    LocalProtocolError,
    MessageSent,
    ModelCallStarted,
    OutputEmitted,
    PersistMessage,
    ResolveToolCall,
    RoutingCore,
    StartTimer,
    StartTurn,
    TargetError,
    TimerFired,
    ToolCallBlocked,
    TurnEnded,
)
from teamwire.router.events import TurnFailed
from teamwire.router.runtime import ScriptedAgent, Session, VirtualClock
from tests.router.helpers import FSE, LEADER, UIO, UIO2, feed, of_type, team


def _fail_code(actions: list) -> str:  # type: ignore[type-arg]
    [fail] = of_type(actions, FailToolCall)
    code: str = fail.code
    return code


def test_wait_cycle_leader_asks_a_sub_agent_that_waits_on_it() -> None:
    """TW-ROUTE-016: the newer ask fails at once with wait-cycle; the older one stays."""
    core = team()
    feed(core, ToolCallBlocked(FSE, "f-1", LEADER, "ask_fse_001", "?"))
    actions = core.handle(ToolCallBlocked(LEADER, "l-1", FSE, "ask_tl_001", "status?"))
    assert _fail_code(actions) == "wait-cycle"
    assert core.state(LEADER) is AgentState.RUNNING
    assert core.record(FSE).ask is not None and core.state(FSE) is AgentState.WAITING


def test_wait_cycle_between_two_sub_agents() -> None:
    """TW-ROUTE-016: A waits on B, B asks A → B's ask fails."""
    core = team()
    feed(core, ToolCallBlocked(UIO, "u-1", FSE, "ask_uio_001", "?"))
    assert _fail_code(core.handle(ToolCallBlocked(FSE, "f-1", UIO, "ask_fse_001", "?"))) \
        == "wait-cycle"
    # a longer cycle: FSE → Leader is fine, Leader → UIO closes UIO → FSE → Leader → UIO
    feed(core, ToolCallBlocked(FSE, "f-2", LEADER, "ask_fse_002", "?"))
    assert _fail_code(core.handle(ToolCallBlocked(LEADER, "l-1", UIO, "ask_tl_001", "?"))) \
        == "wait-cycle"


def test_self_targeting_is_invalid() -> None:
    """TW-TOOL-030."""
    core = team()
    assert _fail_code(core.handle(ToolCallBlocked(UIO, "u", UIO, "ask_uio_001", "?"))) \
        == "invalid-arguments"


def test_duplicate_message_id_is_dropped() -> None:
    """TW-DEL-004: a repeated id leaves the queue unchanged and is acknowledged again, with
    the delivery of the first acknowledgment."""
    core = team()
    first = core.handle(MessageSent(LEADER, UIO, MessageType.MESSAGE, "x", "msg_tl_050", "c1"))
    again = core.handle(MessageSent(LEADER, UIO, MessageType.MESSAGE, "x", "msg_tl_050", "c1b"))
    assert of_type(first, PersistMessage) and not of_type(again, PersistMessage)
    [ack] = of_type(again, AcknowledgeSend)
    assert ack.duplicate and ack.message_id == "msg_tl_050" and ack.call_id == "c1b"
    assert ack.delivery == of_type(first, AcknowledgeSend)[0].delivery == "inline"
    assert [m.id for m in core.pending(UIO)] == ["msg_tl_050"]
    # allocation skips past the agent-chosen id
    nxt = core.handle(MessageSent(LEADER, UIO, MessageType.MESSAGE, "y", call_id="c2"))
    assert of_type(nxt, AcknowledgeSend)[0].message_id == "msg_tl_051"


def test_duplicate_question_id_fails() -> None:
    """An ask whose id is already used fails with duplicate-id and changes nothing."""
    core = team()
    before = core.snapshot()
    assert _fail_code(core.handle(ToolCallBlocked(UIO, "u", LEADER, "task_001", "?"))) \
        == "duplicate-id"
    assert core.snapshot() == before


@pytest.mark.parametrize("limit", [1, 2, 8])
def test_round_limit_between_sub_agents(limit: int) -> None:
    """TW-MSG-010, TW-MSG-011: every ask_other_agent within the limit is accepted (the asker
    waits, its message has round n) and answered; the first one beyond it fails with
    round-limit and enqueues nothing; a new TASK starts a new count."""
    core = team(max_ask_rounds=limit)
    for n in range(1, limit + 1):
        asked = core.handle(ToolCallBlocked(UIO, f"u{n}", FSE, f"ask_uio_{n:03d}", "?"))
        assert not of_type(asked, FailToolCall), f"ask {n} of {limit} was refused"
        [message] = [a.message for a in of_type(asked, PersistMessage)]
        assert (message.id, message.round) == (f"ask_uio_{n:03d}", n)
        assert core.state(UIO) is AgentState.WAITING
        feed(core, ModelCallStarted(FSE))
        answered = core.handle(AnswerGiven(FSE, UIO, f"ask_uio_{n:03d}", "ok", call_id=f"f{n}"))
        [resolved] = of_type(answered, ResolveToolCall)
        assert (resolved.agent, resolved.call_id) == (UIO, f"u{n}")
        assert not of_type(answered, FailToolCall)
    beyond = core.handle(ToolCallBlocked(UIO, "u-over", FSE, "ask_uio_999", "?"))
    assert _fail_code(beyond) == "round-limit"
    assert not of_type(beyond, PersistMessage) and core.state(UIO) is AgentState.RUNNING
    feed(core, MessageSent(LEADER, UIO, MessageType.TASK, "new task"), ModelCallStarted(UIO))
    renewed = core.handle(ToolCallBlocked(UIO, "u-new", FSE, "ask_uio_998", "?"))
    assert not of_type(renewed, FailToolCall)
    assert [a.message.round for a in of_type(renewed, PersistMessage)] == [1]


@pytest.mark.parametrize("limit", [0, -1, 1.0, 2.5, True, "8", None])
def test_round_limit_must_be_an_integer_of_at_least_one(limit: object) -> None:
    """TW-MSG-011: the core and the session refuse any other round limit at construction."""
    with pytest.raises(ValueError):
        RoutingCore(max_ask_rounds=limit)  # type: ignore[arg-type]
    clock = VirtualClock()
    with pytest.raises(ValueError):
        Session(leader=ScriptedAgent([], clock), drivers=lambda n, r: ScriptedAgent([], clock),
                clock=clock, max_ask_rounds=limit)  # type: ignore[arg-type]
    assert RoutingCore(max_ask_rounds=1).max_ask_rounds == 1


def test_ambiguous_agent_id_names_candidates() -> None:
    """TW-TOOL-027, TW-TOOL-028, TW-TOOL-029."""
    core = team()
    with pytest.raises(TargetError) as err:
        core.resolve_target(1)
    assert err.value.code == "ambiguous-agent-id"
    assert [c[2] for c in err.value.candidates] == [UIO, FSE]
    assert core.resolve_target(1, "full-stack-engineer") == FSE
    assert core.resolve_target(1, exclude=UIO) == FSE
    assert core.resolve_target(1, "ui-operator", exclude=UIO) == UIO
    with pytest.raises(TargetError) as missing:
        core.resolve_target(2)
    assert missing.value.code == "unknown-agent"


def test_ask_timeout_on_virtual_time() -> None:
    """TW-ROUTE-017: TimerFired fails the ask with timeout; a late answer gets not-waiting."""
    core = team()
    started = core.handle(ToolCallBlocked(FSE, "f-1", LEADER, "ask_fse_001", "?", timeout=30))
    assert of_type(started, StartTimer)[0].seconds == 30
    assert _fail_code(core.handle(TimerFired(FSE, "f-1"))) == "timeout"
    assert core.state(FSE) is AgentState.RUNNING
    feed(core, ModelCallStarted(LEADER))  # the leader reads the question after all
    assert _fail_code(core.handle(AnswerGiven(LEADER, FSE, "ask_fse_001", "late"))) \
        == "not-waiting"
    assert core.handle(TimerFired(FSE, "f-1")) == []  # stale timer


def test_a_stale_timer_leaves_a_newer_ask_open() -> None:
    """TW-ROUTE-017, TW-ROUTE-013: the timer of an answered ask fires after its agent opened a
    newer ask: nothing changes; the newer ask stays open until its own timer fires."""
    core = team()
    feed(core, ToolCallBlocked(FSE, "f-1", LEADER, "ask_fse_001", "?", timeout=30),
         ModelCallStarted(LEADER), AnswerGiven(LEADER, FSE, "ask_fse_001", "yes"),
         ToolCallBlocked(FSE, "f-2", LEADER, "ask_fse_002", "and?", timeout=30))
    before = core.snapshot()
    assert core.handle(TimerFired(FSE, "f-1")) == []
    assert core.snapshot() == before
    assert core.state(FSE) is AgentState.WAITING
    ask = core.record(FSE).ask
    assert ask is not None and (ask.call_id, ask.question_id) == ("f-2", "ask_fse_002")
    fired = core.handle(TimerFired(FSE, "f-2"))
    assert [(a.agent, a.call_id, a.code) for a in of_type(fired, FailToolCall)] == \
        [(FSE, "f-2", "timeout")]
    assert core.state(FSE) is AgentState.RUNNING and core.record(FSE).ask is None


def test_unknown_question() -> None:
    """TW-ROUTE-015: an id no ask of that asker to the caller ever had."""
    core = team()
    feed(core, ToolCallBlocked(FSE, "f-1", LEADER, "ask_fse_001", "?"))
    assert _fail_code(core.handle(AnswerGiven(LEADER, FSE, "ask_fse_999", "x"))) \
        == "unknown-question"
    assert _fail_code(core.handle(AnswerGiven(UIO, FSE, "ask_fse_001", "x"))) \
        == "unknown-question"
    assert core.state(FSE) is AgentState.WAITING  # TW-ROUTE-013


def test_a_question_not_yet_received_cannot_be_answered() -> None:
    """TW-ROUTE-015: the caller must have received the ASK; until it is delivered to the
    leader (its next model call) an answer is unknown-question and the ask stays pending."""
    core = team()
    feed(core, ToolCallBlocked(FSE, "f-1", LEADER, "ask_fse_001", "?"))
    assert _fail_code(core.handle(AnswerGiven(LEADER, FSE, "ask_fse_001", "early"))) \
        == "unknown-question"
    assert core.state(FSE) is AgentState.WAITING
    feed(core, ModelCallStarted(LEADER))
    assert of_type(core.handle(AnswerGiven(LEADER, FSE, "ask_fse_001", "now")), ResolveToolCall)


def test_termination_fails_waiting_askers_and_discards_queue() -> None:
    """TW-ROUTE-020, TW-ROUTE-021, TW-ROUTE-024: the terminated agent's own ask is cancelled
    (its timer exactly, no result), the ask waiting on it fails (its timer too), an ask of a
    bystander keeps its timer, the queue is discarded, what it sent is still delivered."""
    core = team()
    feed(core, AgentCreated(UIO2, "ui-operator"),
         MessageSent(LEADER, UIO2, MessageType.TASK, "t"),
         OutputEmitted(UIO, "progress before termination"),
         ToolCallBlocked(UIO, "u-1", LEADER, "ask_uio_001", "colours?", timeout=30),
         ToolCallBlocked(FSE, "f-1", UIO, "ask_fse_001", "?", timeout=9),
         ToolCallBlocked(UIO2, "v-1", LEADER, "ask_uio_002", "fonts?", timeout=40),
         MessageSent(LEADER, UIO, MessageType.MESSAGE, "never read"))
    actions = core.handle(AgentTerminated(UIO))
    assert [(a.agent, a.call_id, a.code) for a in of_type(actions, FailToolCall)] == \
        [(FSE, "f-1", "agent-terminated")]
    assert sorted((a.agent, a.call_id) for a in of_type(actions, CancelTimer)) == \
        [(FSE, "f-1"), (UIO, "u-1")]
    assert core.state(UIO2) is AgentState.WAITING and core.record(UIO2).ask is not None
    [discard] = of_type(actions, DiscardMessages)
    assert (discard.agent, discard.message_ids) == (UIO, ("ask_fse_001", "msg_tl_001"))
    # still delivered: its progress and its question (TW-ROUTE-021)
    assert [(m.kind, m.sender) for m in core.pending(LEADER)] == [
        (MessageType.PROGRESS, UIO), (MessageType.ASK, UIO), (MessageType.ASK, UIO2)]
    send = core.handle(MessageSent(LEADER, UIO, MessageType.MESSAGE, "x"))
    assert _fail_code(send) == "agent-terminated"


def test_leader_cannot_be_terminated() -> None:
    """TW-ROUTE-004."""
    core = team()
    before = core.snapshot()
    with pytest.raises(LocalProtocolError) as refused:
        core.handle(AgentTerminated(LEADER))
    assert str(refused.value) == "the Team Leader cannot be terminated"
    assert core.snapshot() == before


def test_ask_sub_agent_answered_by_next_output_not_as_output() -> None:
    """TW-TOOL-013: the sub-agent's first output after delivery answers; no PROGRESS."""
    core = team()
    feed(core, OutputEmitted(FSE, "before the question"))
    feed(core, ToolCallBlocked(LEADER, "l-1", FSE, "ask_tl_001", "How long?"))
    # not delivered yet: this output is ordinary progress (queued for the waiting leader)
    feed(core, OutputEmitted(FSE, "still before delivery"))
    assert core.state(LEADER) is AgentState.WAITING
    feed(core, ModelCallStarted(FSE))
    actions = core.handle(OutputEmitted(FSE, "About ten minutes."))
    [resolved] = of_type(actions, ResolveToolCall)
    answer = parse(resolved.text)
    assert (answer.sender, answer.question_id, answer.content) == \
        (FSE, "ask_tl_001", "About ten minutes.")
    assert [m.content for m in core.pending(LEADER)] == ["before the question",
                                                         "still before delivery"]


def test_output_answers_only_an_ask_its_sender_has_received() -> None:
    """TW-ROUTE-012, TW-ROUTE-013: ask_sub_agent is answered by the first natural output of
    the target after the ASK was delivered to it. The leader's first ask reached Full-Stack
    Engineer_1 and timed out; its second is still queued when Full-Stack Engineer_1's model
    call (started before it arrived) outputs text: that text is PROGRESS, and the second ask
    stays open until its ASK is delivered."""
    core = team()
    feed(core, ToolCallBlocked(LEADER, "l-1", FSE, "ask_tl_001", "eta?", timeout=5),
         ModelCallStarted(FSE), TimerFired(LEADER, "l-1"),
         ToolCallBlocked(LEADER, "l-2", FSE, "ask_tl_002", "eta now?"))
    assert [m.id for m in core.pending(FSE)] == ["ask_tl_002"]  # not delivered
    actions = core.handle(OutputEmitted(FSE, "still working on the API"))
    assert not of_type(actions, ResolveToolCall)
    assert [m.kind for m in core.pending(LEADER)][-1] is MessageType.PROGRESS
    assert core.state(LEADER) is AgentState.WAITING
    # once the ASK is delivered, the next output answers it
    feed(core, ModelCallStarted(FSE))
    [resolved] = of_type(core.handle(OutputEmitted(FSE, "ten minutes")), ResolveToolCall)
    assert (resolved.call_id, resolved.message.question_id) == ("l-2", "ask_tl_002")


def test_notification_answered_by_output_or_answer_tool() -> None:
    """ask_other_agent with a msg_ id is a MESSAGE; B's next natural output answers it."""
    core = team()
    feed(core, ToolCallBlocked(UIO, "u-1", FSE, "msg_uio_001", "Front end is ready."))
    assert core.pending(FSE)[0].kind is MessageType.MESSAGE
    feed(core, ModelCallStarted(FSE))
    assert not of_type(core.handle(OutputEmitted(FSE, "   ")), ResolveToolCall)  # blank
    assert of_type(core.handle(OutputEmitted(FSE, "Great, wiring it up.")), ResolveToolCall)


def test_one_output_answers_every_delivered_ask() -> None:
    """TW-ROUTE-014: each asker gets its own ANSWER with a new id."""
    core = team()
    feed(core, AgentCreated(UIO2, "ui-operator"),
         MessageSent(LEADER, UIO2, MessageType.TASK, "t"),
         ToolCallBlocked(UIO, "u-1", FSE, "msg_uio_001", "ready"),
         ToolCallBlocked(UIO2, "v-1", FSE, "msg_uio_002", "ready too"),
         ModelCallStarted(FSE))
    resolved = of_type(core.handle(OutputEmitted(FSE, "Thanks both.")), ResolveToolCall)
    assert {r.agent for r in resolved} == {UIO, UIO2}
    assert len({r.message.id for r in resolved}) == 2


def test_turn_timeout_reports_a_run_result() -> None:
    """TW-ROUTE-018, TW-RES-009: the COMPLETION holds a run result with state timeout."""
    core = team()
    feed(core, ToolCallBlocked(FSE, "f-1", LEADER, "ask_fse_001", "?"))
    actions = core.handle(TurnFailed(FSE, "timeout", "turn stopped after 600 seconds"))
    assert _fail_code(actions) == "timeout"
    assert core.state(FSE) is AgentState.COMPLETED
    completion = core.pending(LEADER)[-1]
    assert completion.kind is MessageType.COMPLETION
    assert completion.content.startswith('<result agent="Full-Stack Engineer_1" state="timeout">')


def test_idle_leader_is_woken_by_output() -> None:
    """TW-ROUTE-023: PROGRESS to an idle or completed leader starts one leader turn."""
    core = team()
    feed(core, TurnEnded(LEADER))
    [turn] = of_type(core.handle(OutputEmitted(UIO, "progress")), StartTurn)
    assert turn.agent == LEADER
    assert of_type(core.handle(OutputEmitted(UIO, "more")), AppendInline) == []


def test_illegal_event_changes_nothing() -> None:
    """LocalProtocolError leaves the core exactly as it was."""
    core = team()
    before = core.snapshot()
    for event in (TurnEnded("Nobody_1"), AgentCreated(UIO, "ui-operator"),
                  MessageSent(UIO, FSE, MessageType.TASK, "x"),
                  MessageSent(LEADER, LEADER, MessageType.MESSAGE, "x"),
                  AgentCreated("Designer_1", "ui-operator")):
        with pytest.raises(LocalProtocolError):
            core.handle(event)
        assert core.snapshot() == before


def test_a_silent_turn_end_reports_empty_and_answers_no_ask() -> None:
    """TW-TYPE-017: a turn that ends with blank text gives one empty COMPLETION; it is not the
    "first natural output" that answers an ask_sub_agent (TW-ROUTE-012, TW-ROUTE-013), so the
    ask stays pending until real output, its timeout or a termination. Blank text beside tool
    calls gives nothing (TW-TYPE-016)."""
    core = team()
    feed(core, ToolCallBlocked(LEADER, "l-1", UIO, "ask_tl_001", "eta?", timeout=600),
         ModelCallStarted(UIO))
    assert not of_type(core.handle(OutputEmitted(UIO, " \n")), PersistMessage)
    silent = core.handle(OutputEmitted(UIO, "  ", final=True))
    [report] = [a.message for a in of_type(silent, PersistMessage)]
    assert (report.kind, report.content, report.receiver) == (MessageType.COMPLETION, "", LEADER)
    assert not of_type(silent, ResolveToolCall)
    assert core.state(LEADER) is AgentState.WAITING
    assert _fail_code(core.handle(TimerFired(LEADER, "l-1"))) == "timeout"
    [inline] = of_type(core.handle(ModelCallStarted(LEADER)), AppendInline)
    assert [m.id for m in inline.messages] == [report.id]
