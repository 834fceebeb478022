"""The routing scenarios of the design (3.1 to 3.5) and the routing chapter's example."""

from __future__ import annotations

from teamwire.envelope import MessageType, parse
from teamwire.router import (
    AcknowledgeSend,
    AgentState,
    AnswerGiven,
    AppendInline,
    MessageSent,
    ModelCallStarted,
    OutputEmitted,
    ResolveToolCall,
    StartTurn,
    ToolCallBlocked,
    TurnEnded,
)
from tests.router.helpers import FSE, LEADER, UIO, feed, of_type, team


def test_scenario_3_1_guidance_while_running() -> None:
    """TW-ROUTE-007, TW-ROUTE-008: guidance to a running sub-agent is inlined before its next
    model call."""
    core = team()
    feed(core, OutputEmitted(UIO, "Next I will create a new API..."))
    actions = core.handle(MessageSent(LEADER, UIO, MessageType.MESSAGE,
                                      "Do not create an API; check whether auth can be reused.",
                                      call_id="g1"))
    [ack] = of_type(actions, AcknowledgeSend)
    assert ack.delivery == "inline" and ack.message_id == "msg_tl_001"
    assert not of_type(actions, StartTurn) and not of_type(actions, AppendInline)
    [inline] = of_type(core.handle(ModelCallStarted(UIO)), AppendInline)
    envelope = parse(inline.texts[0])
    assert (envelope.sender, envelope.label, envelope.id) == (LEADER, "消息", "msg_tl_001")
    assert "auth" in envelope.content


def test_scenario_3_2_answer_to_a_waiting_sub_agent() -> None:
    """TW-ROUTE-012, TW-TOOL-014: the leader's answer is the result of the ask_master call."""
    core = team()
    feed(core, ToolCallBlocked(FSE, "call-7", LEADER, "ask_fse_001", "Which branch strategy?"))
    assert core.state(FSE) is AgentState.WAITING
    [asked] = of_type(core.handle(ModelCallStarted(LEADER)), AppendInline)
    assert parse(asked.texts[0]).label == "提问"
    actions = core.handle(AnswerGiven(LEADER, FSE, "ask_fse_001", "Trunk-based.", call_id="a1"))
    [resolved] = of_type(actions, ResolveToolCall)
    answer = parse(resolved.text)
    assert resolved.call_id == "call-7" and resolved.agent == FSE
    assert (answer.sender, answer.label, answer.question_id) == (LEADER, "回答", "ask_fse_001")
    assert core.state(FSE) is AgentState.RUNNING


def test_scenario_3_3_new_task_for_a_completed_sub_agent() -> None:
    """TW-ROUTE-009: a message to a completed sub-agent starts a new turn with it."""
    core = team()
    feed(core, OutputEmitted(FSE, "API done.", final=True), TurnEnded(FSE))
    assert core.state(FSE) is AgentState.COMPLETED
    actions = core.handle(MessageSent(LEADER, FSE, MessageType.MESSAGE, "Add rate limiting.",
                                      call_id="s1"))
    [turn] = of_type(actions, StartTurn)
    assert turn.agent == FSE and parse(turn.texts[0]).content == "Add rate limiting."
    assert of_type(actions, AcknowledgeSend)[0].delivery == "new_turn"
    assert core.state(FSE) is AgentState.RUNNING


def test_scenario_3_4_message_during_the_final_turn() -> None:
    """TW-ROUTE-011: a message that arrives during the last model call starts a new turn
    right after the COMPLETION."""
    core = team()
    feed(core, ModelCallStarted(UIO))
    feed(core, MessageSent(LEADER, UIO, MessageType.MESSAGE, "Also add a dark theme."))
    out = core.handle(OutputEmitted(UIO, "Design finished.", final=True))
    assert core.state(UIO) is AgentState.CLOSING
    assert core.pending(LEADER)[-1].kind is MessageType.COMPLETION
    assert [m.content for m in core.pending(UIO)] == ["Also add a dark theme."]
    assert not of_type(out, StartTurn)
    [turn] = of_type(core.handle(TurnEnded(UIO)), StartTurn)
    assert turn.agent == UIO and parse(turn.texts[0]).content == "Also add a dark theme."
    assert core.state(UIO) is AgentState.RUNNING and not core.pending(UIO)


def test_a_message_to_a_receiver_ending_its_turn_is_acknowledged_inline() -> None:
    """TW-TOOL-012: delivery describes the state the receiver is reported in. During its
    final model call (internally closing) a receiver is running, so the send says inline,
    not queued (which means waiting); the message starts the next turn (TW-ROUTE-011)."""
    core = team()
    feed(core, ModelCallStarted(UIO), OutputEmitted(UIO, "Design finished.", final=True))
    assert core.state(UIO).status == "running"
    for event in (MessageSent(LEADER, UIO, MessageType.MESSAGE, "fast path", call_id="s1"),
                  MessageSent(LEADER, UIO, MessageType.MESSAGE, "own id", message_id="msg_x_1",
                              call_id="s2")):
        [ack] = of_type(core.handle(event), AcknowledgeSend)
        assert ack.delivery == "inline"
    [turn] = of_type(core.handle(TurnEnded(UIO)), StartTurn)
    assert [m.content for m in turn.messages] == ["fast path", "own id"]


def test_scenario_3_5_sub_agent_asks_a_running_sub_agent() -> None:
    """TW-ROUTE-007, TW-TOOL-021, TW-TOOL-022: A asks running B; B's answer_other_agent
    returns to A's ask_other_agent call."""
    core = team()
    feed(core, ToolCallBlocked(UIO, "u-1", FSE, "ask_uio_001", "Is the API fixed?"))
    assert core.state(UIO) is AgentState.WAITING
    [inline] = of_type(core.handle(ModelCallStarted(FSE)), AppendInline)
    question = parse(inline.texts[0])
    assert (question.sender, question.label, question.id) == (UIO, "提问", "ask_uio_001")
    actions = core.handle(AnswerGiven(FSE, UIO, "ask_uio_001", "Yes: POST /api/users.", "f-9"))
    [resolved] = of_type(actions, ResolveToolCall)
    assert resolved.call_id == "u-1"
    answer = parse(resolved.text)
    assert answer.sender == FSE and answer.question_id == "ask_uio_001"
    assert answer.id.startswith("ans_fse_")
    assert of_type(actions, AcknowledgeSend)[0].message_id == answer.id


def test_routing_chapter_example_answers_first() -> None:
    """TW-ROUTE-008, TW-ROUTE-010: batch drain in order; the answer precedes queued messages."""
    core = team()
    feed(core, MessageSent(LEADER, UIO, MessageType.MESSAGE, "first"),
         ToolCallBlocked(FSE, "f-1", UIO, "ask_fse_002", "question from FSE"))
    [inline] = of_type(core.handle(ModelCallStarted(UIO)), AppendInline)
    assert [m.id for m in inline.messages] == ["msg_tl_001", "ask_fse_002"]
    feed(core, ToolCallBlocked(UIO, "u-1", LEADER, "ask_uio_001", "may I?"))
    queued = core.handle(MessageSent(LEADER, UIO, MessageType.MESSAGE, "second", call_id="s2"))
    assert of_type(queued, AcknowledgeSend)[0].delivery == "queued"
    feed(core, ModelCallStarted(LEADER))  # the leader reads the ASK, then answers it
    resolved = core.handle(AnswerGiven(LEADER, UIO, "ask_uio_001", "yes"))
    assert of_type(resolved, ResolveToolCall) and not of_type(resolved, AppendInline)
    [after] = of_type(core.handle(ModelCallStarted(UIO)), AppendInline)
    assert [m.content for m in after.messages] == ["second"]
