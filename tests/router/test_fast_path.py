"""The core's one-step path for common sends gives exactly what the general path gives."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from teamwire.envelope import MessageType
from teamwire.router import (
    Action,
    AgentCreated,
    AgentTerminated,
    Event,
    LocalProtocolError,
    MessageSent,
    ModelCallStarted,
    OutputEmitted,
    RoutingCore,
    ToolCallBlocked,
    TurnEnded,
    TurnStarted,
)
from tests.router.helpers import FSE, LEADER, UIO


class GeneralOnly(RoutingCore):
    """The core without its fast path."""

    def _send_fast(self, event: MessageSent) -> list[Action] | None:
        return None


AGENTS = st.sampled_from([LEADER, UIO, FSE, "Nobody_1"])
CALLS = st.one_of(st.none(), st.sampled_from(["c1", "c2"]),  # repeated calls, and fresh ones
                  st.integers(3, 10**6).map(lambda n: f"c{n}"))
SEND = st.builds(MessageSent, st.just(LEADER), st.sampled_from([UIO, FSE]),
                 st.just(MessageType.MESSAGE), st.just("z"), st.just(None), CALLS)
EVENTS = st.one_of(
    SEND, SEND, SEND,
    st.builds(MessageSent, st.just(LEADER), AGENTS,
              st.sampled_from([MessageType.MESSAGE, MessageType.MESSAGE, MessageType.TASK]),
              st.just("x"), st.sampled_from([None, None, "msg_tl_002", "msg_x_001"]), CALLS),
    st.builds(MessageSent, AGENTS, AGENTS, st.just(MessageType.MESSAGE), st.just("y")),
    st.builds(ModelCallStarted, AGENTS),
    st.builds(OutputEmitted, AGENTS, st.sampled_from(["", "out"]), st.booleans()),
    st.builds(TurnEnded, AGENTS),
    st.builds(TurnStarted, AGENTS),
    st.builds(ToolCallBlocked, AGENTS, st.sampled_from(["b1", "b2"]), AGENTS,
              st.sampled_from(["ask_a_001", "msg_a_002"]), st.just("?")),
    st.builds(AgentTerminated, st.sampled_from([UIO, FSE])),
)


def _outcome(core: RoutingCore, event: Event) -> list[Action] | str:
    try:
        return core.handle(event)
    except LocalProtocolError as exc:
        return f"illegal: {exc}"


@settings(max_examples=200)
@given(events=st.lists(EVENTS, max_size=40))
def test_fast_and_general_paths_agree(events: list[Event]) -> None:
    """TW-ROUTE-007, TW-DEL-004, TW-DUR-003 hold the same on both paths."""
    fast, general = RoutingCore(), GeneralOnly()
    for core in (fast, general):
        for start in (AgentCreated(LEADER, "team-leader"), TurnStarted(LEADER),
                      AgentCreated(UIO, "ui-operator"),
                      AgentCreated(FSE, "full-stack-engineer"),
                      MessageSent(LEADER, UIO, MessageType.TASK, "t1", call_id="t1"),
                      MessageSent(LEADER, FSE, MessageType.TASK, "t2", call_id="t2")):
            core.handle(start)
    for event in events:
        assert _outcome(fast, event) == _outcome(general, event), event
    assert fast.snapshot() == general.snapshot()
    assert fast.records() == general.records()
