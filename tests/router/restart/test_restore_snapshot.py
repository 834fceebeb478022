"""A router restarted from a snapshot: what it refuses, and what it knows afterwards.

A restart (``Restarted``) is legal only on an empty core, and a snapshot that names an agent
the protocol does not allow, or queues a message for an agent it does not hold, is refused
with an error that names the culprit and leaves the core empty. A restored router continues
as the router that stopped would have (TW-DUR-004, TW-DUR-005, TW-DUR-006): the same message
numbers, the same role catalog (TW-NAME-010), the same pending asks with the time they have
left (TW-ROUTE-017), answered by output only once their question has reached the answerer
(TW-ROUTE-012); only a waiting agent keeps an ask; a restart that changes nothing writes
nothing, and the messages accepted after it come after every restored one (TW-DEL-003).
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from teamwire.envelope import MessageType
from teamwire.router import (
    AcknowledgeSend,
    Action,
    AgentCreated,
    AgentState,
    AnswerGiven,
    AppendInline,
    Event,
    FailToolCall,
    LocalProtocolError,
    MessageSent,
    ModelCallStarted,
    OutputEmitted,
    PersistMessage,
    ResolveToolCall,
    Restarted,
    RoutedMessage,
    RoutingCore,
    Snapshot,
    StartTimer,
    ToolCallBlocked,
    TurnEnded,
)
from teamwire.router.records import AgentRecord
from tests.router.helpers import FSE, LEADER, UIO, of_type, team


def _restored(snapshot: Snapshot, now: float | None = None) -> tuple[RoutingCore, list[Action]]:
    core = RoutingCore()
    return core, core.handle(Restarted(snapshot, now=now))


def _refusal(snapshot: Snapshot) -> str:
    """The message of the error a restart from ``snapshot`` raises; the core stays empty."""
    core = RoutingCore()
    with pytest.raises(LocalProtocolError) as refused:
        core.handle(Restarted(snapshot))
    assert core.records() == []
    return str(refused.value)


# ----------------------------------------------------------------------------- refusals


def test_a_restart_of_a_core_that_has_agents_is_refused_by_name() -> None:
    """Like every illegal event, the error names the event first; nothing changes."""
    core = team()
    before = core.snapshot()
    with pytest.raises(LocalProtocolError) as illegal:
        core.handle(TurnEnded("Designer_1"))
    assert str(illegal.value).startswith("TurnEnded ")
    with pytest.raises(LocalProtocolError) as refused:
        core.handle(Restarted(Snapshot()))
    message = str(refused.value)
    assert message.startswith("Restarted ") and "agents" in message
    assert core.snapshot() == before


@pytest.mark.parametrize("name", ["UI Operator_0", "Team Leader_1", "UI Operator"])
def test_a_snapshot_with_a_name_the_protocol_forbids_is_refused_naming_it(name: str) -> None:
    """TW-NAME-002: every restored agent needs a valid display name."""
    snapshot = Snapshot((AgentRecord(LEADER, "team-leader"), AgentRecord(name, "ui-operator")))
    assert repr(name) in _refusal(snapshot)


def test_a_snapshot_that_queues_for_an_unknown_agent_is_refused_naming_both() -> None:
    ghost = RoutedMessage("msg_tl_007", MessageType.MESSAGE, LEADER, "Designer_1", "hi", 7)
    snapshot = Snapshot((AgentRecord(LEADER, "team-leader"), AgentRecord(UIO, "ui-operator")),
                        (ghost,), frozenset({"msg_tl_007"}), 8)
    message = _refusal(snapshot)
    assert "'msg_tl_007'" in message and "'Designer_1'" in message


# ------------------------------------------------------------- a restart is transparent


def _ask_queued() -> RoutingCore:
    """The leader (running) has sent UI Operator_1 (running) a MESSAGE it has not read yet."""
    core = team()
    core.handle(MessageSent(LEADER, UIO, MessageType.MESSAGE, "dark mode too", call_id="m1"))
    return core


STOPS = {
    "no message yet": lambda: team(tasks=False),
    "tasks delivered": team,
    "last message queued": _ask_queued,
}


@pytest.mark.parametrize("stop", sorted(STOPS))
def test_a_restored_router_goes_on_as_the_one_that_stopped(stop: str) -> None:
    """TW-DUR-004, TW-DUR-006: the same events after the restart give the same actions
    (message numbers, ids, deliveries) and the same state as without the restart."""
    stopped = STOPS[stop]()
    restored, _ = _restored(stopped.snapshot())
    events: list[Event] = [
        MessageSent(LEADER, UIO, MessageType.TASK, "a new task", call_id="n1"),
        MessageSent(LEADER, FSE, MessageType.MESSAGE, "and you", call_id="n2"),
        ModelCallStarted(UIO) if stopped.state(UIO) is AgentState.RUNNING else TurnEnded(LEADER),
    ]
    for event in events:
        assert restored.handle(event) == stopped.handle(event), event
    assert restored.snapshot() == stopped.snapshot()


def test_the_first_message_after_a_restart_of_a_fresh_session_is_number_one() -> None:
    restored, actions = _restored(team(tasks=False).snapshot())
    [persisted] = of_type(restored.handle(MessageSent(LEADER, UIO, MessageType.TASK, "go")),
                          PersistMessage)
    assert actions == [] and persisted.message.seq == 1


def test_messages_accepted_after_a_restart_come_after_the_restored_ones() -> None:
    """TW-DEL-003, TW-ROUTE-005: even when the snapshot's next number lags behind its queue
    (a store that numbers from its oldest row), a new message is numbered after it."""
    snapshot = _ask_queued().snapshot()
    assert [m.seq for m in snapshot.pending] == [3]
    restored, _ = _restored(replace(snapshot, next_seq=1))
    [persisted] = of_type(restored.handle(MessageSent(LEADER, UIO, MessageType.MESSAGE, "more")),
                          PersistMessage)
    assert persisted.message.seq > 3
    [drained] = of_type(restored.handle(ModelCallStarted(UIO)), AppendInline)
    assert [m.content for m in drained.messages] == ["dark mode too", "more"]


def test_the_role_catalog_is_restored() -> None:
    """TW-NAME-010: after the restart, as before it, a role keeps its name and a name its
    role; a new instance of a known role is created as usual."""
    for core in (team(), _restored(team().snapshot())[0]):
        with pytest.raises(LocalProtocolError):
            core.handle(AgentCreated("Designer_1", "ui-operator"))  # another name for a role
        with pytest.raises(LocalProtocolError):
            core.handle(AgentCreated("UI Operator_2", "designer"))  # a name of another role
        core.handle(AgentCreated("UI Operator_2", "ui-operator"))
        assert core.state("UI Operator_2") is AgentState.IDLE


def test_a_restart_that_changes_nothing_writes_nothing() -> None:
    """Every agent is restored in its state (TW-DUR-005): no record needs writing again, and
    with no queued message and no pending ask there is nothing to do."""
    snapshot = team().snapshot()
    restored, actions = _restored(snapshot)
    assert actions == []
    assert restored.snapshot() == snapshot


def test_a_result_of_an_agent_the_snapshot_does_not_hold_is_ignored() -> None:
    stray = AcknowledgeSend("Designer_1", "c-1", "msg_de_001", UIO, "new_turn")
    snapshot = team().snapshot()
    snapshot = replace(snapshot, results=(*snapshot.results, stray))
    restored, actions = _restored(snapshot)
    assert actions == [] and restored.snapshot() == team().snapshot()


# -------------------------------------------------------------------------- pending asks


def _leader_asks(*, read: bool, timeout: float | None = None,
                 now: float | None = None) -> RoutingCore:
    """The leader waits on its ask_sub_agent to UI Operator_1; ``read``: UIO has read it."""
    core = team()
    core.handle(ToolCallBlocked(LEADER, "c-ask", UIO, "ask_tl_001", "which colour?",
                                timeout=timeout, now=now))
    if read:
        core.handle(ModelCallStarted(UIO))
    return core


def test_a_restored_ask_is_answered_by_the_output_of_its_target() -> None:
    """TW-DUR-005, TW-ROUTE-014: the leader keeps waiting; the first output of UI Operator_1
    after it read the question is the answer."""
    restored, _ = _restored(_leader_asks(read=True).snapshot())
    assert restored.state(LEADER) is AgentState.WAITING
    [resolved] = of_type(restored.handle(OutputEmitted(UIO, "blue")), ResolveToolCall)
    assert (resolved.agent, resolved.call_id) == (LEADER, "c-ask")
    assert (resolved.message.content, resolved.message.question_id) == ("blue", "ask_tl_001")
    assert restored.state(LEADER) is AgentState.RUNNING


def test_a_restored_ask_not_yet_read_is_not_answered_by_earlier_output() -> None:
    """TW-ROUTE-012: output that UI Operator_1 produced before the question reached it is
    a report, not the answer; the output after it read the question is."""
    restored, _ = _restored(_leader_asks(read=False).snapshot())
    early = restored.handle(OutputEmitted(UIO, "still on the palette"))
    assert of_type(early, ResolveToolCall) == []
    [report] = of_type(early, PersistMessage)
    assert report.message.kind is MessageType.PROGRESS
    assert restored.state(LEADER) is AgentState.WAITING
    restored.handle(ModelCallStarted(UIO))
    [resolved] = of_type(restored.handle(OutputEmitted(UIO, "blue")), ResolveToolCall)
    assert resolved.message.content == "blue"


@pytest.mark.parametrize(("asked_at", "now", "seconds"), [
    (None, 100.0, 30.0),   # asked before the router knew the time: no deadline, whole timeout
    (10.0, None, 30.0),    # the host does not say the time now: the whole timeout
    (10.0, 25.0, 15.0),    # the time left until the deadline
    (10.0, 70.0, 0.0),     # past the deadline: fires at once
])
def test_a_restored_ask_gets_a_timer_for_the_time_it_has_left(
        asked_at: float | None, now: float | None, seconds: float) -> None:
    """TW-DUR-004, TW-ROUTE-017: a 30 s ask asked at ``asked_at``, restarted at ``now``."""
    snapshot = _leader_asks(read=True, timeout=30.0, now=asked_at).snapshot()
    _, actions = _restored(snapshot, now=now)
    assert of_type(actions, StartTimer) == [StartTimer(LEADER, "c-ask", seconds)]


def test_only_a_waiting_agent_keeps_its_ask() -> None:
    """TW-DUR-005: a waiting agent keeps waiting for its restored ask; a record of a running
    agent that still names an ask has none pending: no timer, nothing waits for its answer."""
    snapshot = _leader_asks(read=True, timeout=30.0).snapshot()
    agents = tuple(replace(r, state=AgentState.RUNNING) if r.name == LEADER else r
                   for r in snapshot.agents)
    restored, actions = _restored(replace(snapshot, agents=agents))
    assert of_type(actions, StartTimer) == []
    assert restored.record(LEADER).ask is None
    answer = restored.handle(OutputEmitted(UIO, "blue"))
    assert of_type(answer, ResolveToolCall) == []
    assert [p.message.kind for p in of_type(answer, PersistMessage)] == [MessageType.PROGRESS]
    [failed] = of_type(restored.handle(AnswerGiven(UIO, LEADER, "ask_tl_001", "blue")),
                       FailToolCall)
    assert failed.code == "not-waiting"
