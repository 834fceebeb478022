"""Structured messages: correlation_id and round on every routed message (TW-MSG-008,
TW-MSG-009, TW-MSG-010), as the event log exposes them (TW-MSG-001)."""

from __future__ import annotations

import asyncio

import pytest

from teamwire import schemas
from teamwire.envelope import MessageType
from teamwire.router import (
    AnswerGiven,
    FailToolCall,
    MessageSent,
    ModelCallStarted,
    OutputEmitted,
    PersistMessage,
    ResolveToolCall,
    RoutedMessage,
    RoutingCore,
    ToolCallBlocked,
)
from teamwire.router.demo import run_demo
from teamwire.router.serialize import message_to_json
from teamwire.router.store import MemoryStore
from tests.router.helpers import FSE, LEADER, UIO, feed, of_type, team


def _messages(core: RoutingCore, *events: object) -> list[RoutedMessage]:
    return [a.message for a in of_type(feed(core, *events), PersistMessage)]  # type: ignore[arg-type]


def test_correlation_ids_follow_the_task() -> None:
    """TW-MSG-008: a TASK is its own correlation; what a sub-agent sends, and what the leader
    sends or asks it, carries that sub-agent's TASK id; an ANSWER the id of what it answers."""
    core = team()  # task_001 to UI Operator_1, task_002 to Full-Stack Engineer_1
    [guidance] = _messages(core, MessageSent(LEADER, UIO, MessageType.MESSAGE, "g", call_id="m"))
    [progress] = _messages(core, OutputEmitted(UIO, "working"))
    [ask] = _messages(core, ToolCallBlocked(UIO, "u-1", FSE, "ask_uio_001", "fields?"))
    feed(core, ModelCallStarted(FSE))
    [answer] = _messages(core, AnswerGiven(FSE, UIO, "ask_uio_001", "see api.md"))
    [leader_ask] = _messages(core, ToolCallBlocked(LEADER, "l-1", FSE, "ask_tl_001", "eta?"))
    feed(core, ModelCallStarted(FSE))
    [by_output] = _messages(core, OutputEmitted(FSE, "ten minutes"))
    assert guidance.correlation_id == progress.correlation_id == "task_001"
    assert ask.correlation_id == answer.correlation_id == "task_001"
    assert leader_ask.correlation_id == by_output.correlation_id == "task_002"
    assert by_output.kind is MessageType.ANSWER and by_output.question_id == "ask_tl_001"


def test_round_numbers() -> None:
    """TW-MSG-009: 0 for a TASK and the leader's MESSAGE, 1 for PROGRESS and COMPLETION, one
    more per ask of the same sender to the same receiver for one task; answers take the round
    of what they answer."""
    core = team()
    [task] = _messages(core, MessageSent(LEADER, UIO, MessageType.TASK, "again", call_id="t"))
    [guidance] = _messages(core, MessageSent(LEADER, FSE, MessageType.MESSAGE, "g", call_id="g"))
    [progress] = _messages(core, OutputEmitted(UIO, "working"))
    rounds = []
    for n in (1, 2, 3):
        [ask] = _messages(core, ToolCallBlocked(UIO, f"u{n}", FSE, f"ask_uio_00{n}", "?"))
        feed(core, ModelCallStarted(FSE))
        [answer] = _messages(core, AnswerGiven(FSE, UIO, f"ask_uio_00{n}", "ok"))
        rounds.append((ask.round, answer.round))
    [note] = _messages(core, ToolCallBlocked(UIO, "u9", FSE, "msg_uio_009", "fyi"))
    [spoken] = _messages(core, ModelCallStarted(FSE), OutputEmitted(FSE, "noted"))
    assert (task.round, guidance.round, progress.round) == (0, 0, 1)
    assert rounds == [(1, 1), (2, 2), (3, 3)]
    assert note.kind is MessageType.MESSAGE and note.round == 4
    assert spoken.kind is MessageType.ANSWER and spoken.round == 4  # its output answers the note
    [other_way] = _messages(core, ToolCallBlocked(FSE, "f1", UIO, "ask_fse_001", "?"))
    assert other_way.round == 1 and other_way.correlation_id == "task_002"


@pytest.mark.parametrize("limit", [1, 2, 8])
def test_round_limit_counts_rounds_of_one_task(limit: int) -> None:
    """TW-MSG-010: every ask_other_agent whose round is within the limit is accepted and
    answered, the first whose round would pass it fails with round-limit; asks to the leader
    are not limited."""
    core = team(max_ask_rounds=limit)
    for n in range(1, limit + 1):
        asked = core.handle(ToolCallBlocked(UIO, f"u{n}", FSE, f"ask_uio_{n:03d}", "?"))
        assert not of_type(asked, FailToolCall), f"ask {n} of {limit} was refused"
        [ask] = [a.message for a in of_type(asked, PersistMessage)]
        assert (ask.receiver, ask.round) == (FSE, n)
        answered = feed(core, ModelCallStarted(FSE),
                        AnswerGiven(FSE, UIO, f"ask_uio_{n:03d}", "ok", call_id=f"f{n}"))
        assert [(r.agent, r.call_id) for r in of_type(answered, ResolveToolCall)] == \
            [(UIO, f"u{n}")]
        assert not of_type(answered, FailToolCall)
    [fail] = of_type(core.handle(ToolCallBlocked(UIO, "u-over", FSE, "ask_uio_500", "?")),
                     FailToolCall)
    assert (fail.call_id, fail.code) == ("u-over", "round-limit")
    for n in range(1, limit + 3):  # past the limit: the leader is never limited
        asked = core.handle(ToolCallBlocked(UIO, f"m{n}", LEADER, f"ask_uio_{600 + n}", "?"))
        assert not of_type(asked, FailToolCall)
        assert [a.message.round for a in of_type(asked, PersistMessage)] == [n]
        feed(core, ModelCallStarted(LEADER))
        assert of_type(core.handle(AnswerGiven(LEADER, UIO, f"ask_uio_{600 + n}", "ok")),
                       ResolveToolCall)


def test_every_logged_message_is_a_valid_structured_message() -> None:
    """TW-MSG-001, TW-MSG-008, TW-MSG-009: the event log's messages validate against
    message.schema.json, with tool call ids beside them (TW-DUR-003)."""
    session = asyncio.run(run_demo(MemoryStore()))
    validator = schemas.validator("message")
    seen = 0
    for entry in session.events:
        for action in entry["actions"]:
            for message in [action.get("message"), *action.get("messages", [])]:
                if isinstance(message, dict):
                    assert validator.is_valid(message), message
                    seen += 1
    assert seen > 20
    task = next(m for m in session.events if m["event"] == "MessageSent")["actions"][0]["message"]
    assert task["correlation_id"] == task["id"] and task["call_id"] == "call_tl_1"


def test_message_json_round_trip_fields() -> None:
    message = RoutedMessage("ans_fse_001", MessageType.ANSWER, FSE, UIO, "x", 7, "ask_uio_001",
                            "task_001", 2, "call_9")
    data = message_to_json(message)
    assert data["version"] == "1.1" and data["round"] == 2 and data["call_id"] == "call_9"
    assert schemas.validator("message").is_valid(data)
