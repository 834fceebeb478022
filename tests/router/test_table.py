"""Every (state, event) pair: the table's transition, or LocalProtocolError and no change.

TW-ROUTE-001, TW-ROUTE-003, TW-ROUTE-004.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from teamwire.envelope import MessageType
from teamwire.router import (
    AgentCreated,
    AgentState,
    AgentTerminated,
    AnswerGiven,
    LocalProtocolError,
    MessageSent,
    ModelCallStarted,
    OutputEmitted,
    Restarted,
    RoutingCore,
    Snapshot,
    TimerFired,
    ToolCallBlocked,
    ToolCallReturned,
    TurnEnded,
    TurnStarted,
)
from teamwire.router.events import AGENT_EVENT_TYPES, AgentEvent, TurnFailed
from teamwire.router.table import TRANSITIONS
from tests.router.helpers import FSE, LEADER, UIO, feed, team

S = AgentState


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
    allowed = TRANSITIONS.get((state, type(event)))
    try:
        core.handle(event)
    except LocalProtocolError:
        assert core.snapshot() == before, "a rejected event changed the core"
        return
    assert allowed is not None, f"{type(event).__name__} accepted in {state.value}"
    assert core.state(subject) in allowed


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


def test_terminated_is_final() -> None:
    """TW-ROUTE-004: nothing but a stale timer is legal for a terminated agent."""
    legal = {event for (state, event) in TRANSITIONS if state is S.TERMINATED}
    assert legal == {TimerFired}
