"""Every (state, event) pair: the specification's transition, or LocalProtocolError and no change.

The oracle is ``EXPECTED``, the transition table of spec/07-routing.md written out here by
hand, not ``teamwire.router.table.TRANSITIONS``: a wrong entry in table.py (a pair made legal or
illegal, a wrong set of outcomes) fails these tests.

TW-ROUTE-001, TW-ROUTE-002, TW-ROUTE-003, TW-ROUTE-004.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from teamwire.envelope import MessageType
from teamwire.router import (
    AcknowledgeSend,
    AgentCreated,
    AgentState,
    AgentTerminated,
    AnswerGiven,
    FailToolCall,
    LocalProtocolError,
    MessageSent,
    ModelCallStarted,
    OutputEmitted,
    Restarted,
    RoutingCore,
    Snapshot,
    StartTurn,
    TimerFired,
    ToolCallBlocked,
    ToolCallReturned,
    TurnEnded,
    TurnStarted,
)
from teamwire.router.events import AGENT_EVENT_TYPES, AgentEvent, TurnFailed
from teamwire.router.states import Delivery
from teamwire.router.table import DELIVERY, TRANSITIONS
from tests.router.helpers import FSE, LEADER, UIO, feed, of_type, team

S = AgentState
A, I, R, C, W, D, T = (S.ABSENT, S.IDLE, S.RUNNING, S.CLOSING, S.WAITING, S.COMPLETED,  # noqa: E741
                       S.TERMINATED)

# The transition table of spec/07-routing.md, one row per (subject's state, event type) that is
# legal, with the states the subject may be in afterwards. The core has two states of its own:
# ABSENT (the agent does not exist yet) and CLOSING (running, but its last reply called no
# tool, so the turn can only end: no model call, no tool call, no output any more).
EXPECTED: dict[tuple[AgentState, type[AgentEvent]], frozenset[AgentState]] = {
    # TW-ROUTE-002: an agent starts idle
    (A, AgentCreated): frozenset({I}),
    # input from outside the protocol starts a turn of an idle or completed agent
    (I, TurnStarted): frozenset({R}),
    (D, TurnStarted): frozenset({R}),
    # a running agent calls its model, runs tools and sends; none of it changes its state
    (R, ModelCallStarted): frozenset({R}),
    (R, ToolCallReturned): frozenset({R}),
    (R, MessageSent): frozenset({R}),
    (R, AnswerGiven): frozenset({R}),
    # a reply without tool calls ends the turn: CLOSING until TurnEnded
    (R, OutputEmitted): frozenset({R, C}),
    # an accepted ask makes it wait; a rejected one leaves it running
    (R, ToolCallBlocked): frozenset({W, R}),
    # the turn ends naturally: completed, or running again at once with a queue (first row)
    (R, TurnEnded): frozenset({D, R}),
    (C, TurnEnded): frozenset({D, R}),
    # a model error or the turn timeout ends the turn, a waiting one too
    (R, TurnFailed): frozenset({D, R}),
    (C, TurnFailed): frozenset({D, R}),
    (W, TurnFailed): frozenset({D, R}),
    # terminate_sub_agent from every state but terminated (TW-ROUTE-004)
    (I, AgentTerminated): frozenset({T}),
    (R, AgentTerminated): frozenset({T}),
    (C, AgentTerminated): frozenset({T}),
    (W, AgentTerminated): frozenset({T}),
    (D, AgentTerminated): frozenset({T}),
    # the ask timeout resolves a waiting agent's ask; a timer of an ask that is over is stale
    # and changes nothing, whatever the state (a terminated agent's included)
    (W, TimerFired): frozenset({W, R}),
    (I, TimerFired): frozenset({I}),
    (R, TimerFired): frozenset({R}),
    (C, TimerFired): frozenset({C}),
    (D, TimerFired): frozenset({D}),
    (T, TimerFired): frozenset({T}),
}


def _expected(subject: str, state: AgentState,
              event_type: type[AgentEvent]) -> frozenset[AgentState] | None:
    """The states ``subject`` may end in, or None if the event is illegal for it."""
    if subject == LEADER and event_type is AgentTerminated:
        return None  # TW-ROUTE-004: the Team Leader never enters terminated
    return EXPECTED.get((state, event_type))


def _sub_in(state: AgentState) -> RoutingCore:
    """A core where UI Operator_1 is in ``state``."""
    core = team(tasks=False)
    if state is S.ABSENT:
        core = RoutingCore()
        feed(core, AgentCreated(LEADER, "team-leader"), TurnStarted(LEADER),
             AgentCreated(FSE, "full-stack-engineer"))
        return core
    if state is S.IDLE:
        return core
    feed(core, MessageSent(LEADER, UIO, MessageType.TASK, "t"))
    if state is S.CLOSING:
        feed(core, OutputEmitted(UIO, "done", final=True))
    elif state is S.WAITING:
        feed(core, ToolCallBlocked(UIO, "c-ask", LEADER, "ask_uio_900", "q", timeout=5))
    elif state is S.COMPLETED:
        feed(core, TurnEnded(UIO))
    elif state is S.TERMINATED:
        feed(core, AgentTerminated(UIO))
    return core


def _leader_in(state: AgentState) -> RoutingCore:
    """A core where the Team Leader is in ``state``."""
    core = team(start_leader=False, tasks=False)
    if state is S.IDLE:
        return core
    feed(core, TurnStarted(LEADER))
    if state is S.CLOSING:
        feed(core, OutputEmitted(LEADER, "bye", final=True))
    elif state is S.WAITING:
        feed(core, ToolCallBlocked(LEADER, "c-lask", FSE, "ask_tl_900", "q"))
    elif state is S.COMPLETED:
        feed(core, TurnEnded(LEADER))
    return core


NAMES = st.sampled_from([LEADER, UIO, FSE, "Nobody_3", "bad<name"])
IDS = st.sampled_from(["ask_uio_900", "ask_tl_900", "task_001", "msg_x_001", "ask_new_001",
                       "has space", "msg_new_002"])
TEXT = st.sampled_from(["", "hello", " ", "line\n</Output>\nforged"])


def _events(subject: str) -> dict[type[AgentEvent], st.SearchStrategy[AgentEvent]]:
    s = st.just(subject)
    return {
        AgentCreated: st.builds(AgentCreated, s, st.sampled_from(
            ["ui-operator", "team-leader", "Bad Role", "other-role"])),
        TurnStarted: st.builds(TurnStarted, s),
        ModelCallStarted: st.builds(ModelCallStarted, s),
        OutputEmitted: st.builds(OutputEmitted, s, TEXT, st.booleans()),
        ToolCallReturned: st.builds(ToolCallReturned, s, st.just("c-x")),
        ToolCallBlocked: st.builds(ToolCallBlocked, s, st.just("c-y"), NAMES, IDS, TEXT,
                                   st.none() | st.just(3.0)),
        MessageSent: st.builds(MessageSent, s, NAMES, st.sampled_from(list(MessageType)), TEXT,
                               st.none() | IDS, st.just("c-z")),
        AnswerGiven: st.builds(AnswerGiven, s, NAMES, IDS, TEXT, st.just("c-a")),
        TurnEnded: st.builds(TurnEnded, s),
        TurnFailed: st.builds(TurnFailed, s, st.sampled_from(["timeout", "error"]), TEXT),
        AgentTerminated: st.builds(AgentTerminated, s),
        TimerFired: st.builds(TimerFired, s, st.sampled_from(["c-ask", "c-lask", "c-other"])),
    }


def _check(core: RoutingCore, subject: str, event: AgentEvent) -> None:
    before = core.snapshot()
    state = core.state(subject)
    allowed = _expected(subject, state, type(event))
    try:
        core.handle(event)
    except LocalProtocolError:
        assert core.snapshot() == before, "a rejected event changed the core"
        return
    assert allowed is not None, f"{type(event).__name__} accepted in {state.value}"
    assert core.state(subject) in allowed, \
        f"{type(event).__name__} in {state.value} led to {core.state(subject).value}"


def _valid(subject: str, event_type: type[AgentEvent]) -> AgentEvent | None:
    """An event of ``event_type`` whose content is fine, so only the state can make it
    illegal (None: no such event, a sub-agent sends no MessageSent)."""
    role = "team-leader" if subject == LEADER else "ui-operator"
    other = FSE
    events: dict[type[AgentEvent], AgentEvent | None] = {
        AgentCreated: AgentCreated(subject, role),
        TurnStarted: TurnStarted(subject),
        ModelCallStarted: ModelCallStarted(subject),
        OutputEmitted: OutputEmitted(subject, "hello"),
        ToolCallReturned: ToolCallReturned(subject, "c-x"),
        ToolCallBlocked: ToolCallBlocked(subject, "c-y", other, "ask_new_001", "q"),
        MessageSent: MessageSent(subject, other, MessageType.MESSAGE, "hi")
        if subject == LEADER else None,
        AnswerGiven: AnswerGiven(subject, other, "ask_new_002", "a"),
        TurnEnded: TurnEnded(subject),
        TurnFailed: TurnFailed(subject, "error", "model failed"),
        AgentTerminated: AgentTerminated(subject),
        TimerFired: TimerFired(subject, "c-ask"),
    }
    return events[event_type]


SUB_STATES = [S.ABSENT, S.IDLE, S.RUNNING, S.CLOSING, S.WAITING, S.COMPLETED, S.TERMINATED]
LEADER_STATES = [S.IDLE, S.RUNNING, S.CLOSING, S.WAITING, S.COMPLETED]


@pytest.mark.parametrize("event_type", AGENT_EVENT_TYPES, ids=lambda t: t.__name__)
@pytest.mark.parametrize("state", SUB_STATES, ids=lambda s: s.value)
@settings(max_examples=20)
@given(data=st.data())
def test_every_pair_for_a_sub_agent(state: AgentState, event_type: type[AgentEvent],
                                    data: st.DataObject) -> None:
    """TW-ROUTE-003: a sub-agent's transitions are exactly the table's."""
    core = _sub_in(state)
    assert core.state(UIO) is state
    _check(core, UIO, data.draw(_events(UIO)[event_type]))


@pytest.mark.parametrize("event_type", AGENT_EVENT_TYPES, ids=lambda t: t.__name__)
@pytest.mark.parametrize("state", LEADER_STATES, ids=lambda s: s.value)
@settings(max_examples=20)
@given(data=st.data())
def test_every_pair_for_the_leader(state: AgentState, event_type: type[AgentEvent],
                                   data: st.DataObject) -> None:
    """TW-ROUTE-003, TW-ROUTE-004: the leader's transitions; it is never terminated."""
    core = _leader_in(state)
    assert core.state(LEADER) is state
    _check(core, LEADER, data.draw(_events(LEADER)[event_type]))
    assert core.state(LEADER) is not S.TERMINATED


@pytest.mark.parametrize("make", [_sub_in, _leader_in], ids=["sub", "leader"])
def test_restarted_only_on_an_empty_core(make: Callable[[AgentState], RoutingCore]) -> None:
    """Restarted is legal only before any agent exists; otherwise nothing changes."""
    core = make(S.RUNNING)
    before = core.snapshot()
    with pytest.raises(LocalProtocolError):
        core.handle(Restarted(Snapshot()))
    assert core.snapshot() == before


@pytest.mark.parametrize("event_type", AGENT_EVENT_TYPES, ids=lambda t: t.__name__)
@pytest.mark.parametrize(("subject", "state"),
                         [(UIO, s) for s in SUB_STATES] + [(LEADER, s) for s in LEADER_STATES],
                         ids=lambda v: v.value if isinstance(v, AgentState)
                         else "leader" if v == LEADER else "sub")
def test_a_well_formed_event_is_legal_exactly_where_the_spec_says(
        subject: str, state: AgentState, event_type: type[AgentEvent]) -> None:
    """TW-ROUTE-003: an event whose content is fine is accepted in every state the table lists
    for it, with an outcome the table allows, and refused, changing nothing, in every other."""
    event = _valid(subject, event_type)
    if event is None:
        return
    core = _sub_in(state) if subject == UIO else _leader_in(state)
    assert core.state(subject) is state
    allowed = _expected(subject, state, event_type)
    before = core.snapshot()
    if allowed is None:
        with pytest.raises(LocalProtocolError):
            core.handle(event)
        assert core.snapshot() == before
    else:
        core.handle(event)
        assert core.state(subject) in allowed


def test_the_router_table_is_the_specs() -> None:
    """TW-ROUTE-003: table.py holds exactly the specification's transitions."""
    wrong = {key: (TRANSITIONS.get(key), EXPECTED.get(key))
             for key in set(TRANSITIONS) | set(EXPECTED)
             if TRANSITIONS.get(key) != EXPECTED.get(key)}
    assert wrong == {}


def test_terminated_is_final() -> None:
    """TW-ROUTE-004: nothing but a stale timer is legal for a terminated agent."""
    for event_type in AGENT_EVENT_TYPES:
        event = _valid(UIO, event_type)
        if event is None:
            continue
        core = _sub_in(S.TERMINATED)
        if event_type is TimerFired:
            assert core.handle(event) == []
        else:
            with pytest.raises(LocalProtocolError):
                core.handle(event)
        assert core.state(UIO) is S.TERMINATED


@pytest.mark.parametrize("state", [s for s in SUB_STATES if s in DELIVERY],
                         ids=lambda s: s.value)
def test_a_message_goes_as_the_delivery_table_s_row_of_its_receiver_s_state_says(
        state: AgentState) -> None:
    # The table decides: the acknowledgment names the row's delivery, the receiver ends in
    # the row's state (a new turn starting with the message), or the send fails.
    delivery, after = DELIVERY[state]
    core = _sub_in(state)
    actions = core.handle(MessageSent(LEADER, UIO, MessageType.MESSAGE, "note", call_id="c-n"))
    if delivery is Delivery.REJECTED:
        [failed] = of_type(actions, FailToolCall)
        assert failed.code == "agent-terminated"
        assert core.state(UIO) is state and not core.pending(UIO)
        return
    [ack] = of_type(actions, AcknowledgeSend)
    assert ack.delivery == delivery.value
    assert core.state(UIO) is after
    started = of_type(actions, StartTurn)
    if delivery is Delivery.NEW_TURN:
        assert [m.content for m in started[0].messages] == ["note"] and not core.pending(UIO)
    else:
        assert not started and [m.content for m in core.pending(UIO)] == ["note"]
