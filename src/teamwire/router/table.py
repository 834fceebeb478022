"""Every transition of the routing core, in one place.

``TRANSITIONS`` maps (state of the event's subject, event type) to the states
the subject may be in afterwards; a pair missing from it is illegal and
``RoutingCore.handle`` raises ``LocalProtocolError``. Where several outcomes
are listed, the event's content picks one (e.g. an ask that fails at once
leaves its caller running).

``DELIVERY`` is the receiver-state decision table: how a message reaches an
agent in each state, and the state the receiver is in afterwards.

``RESTART`` maps a persisted state to the state it is restored in: every state
is kept; a running agent repeats the model call that was in progress, a
waiting agent keeps waiting for its restored ask.
"""

from __future__ import annotations

from teamwire.router.events import (
    AgentCreated,
    AgentEvent,
    AgentTerminated,
    AnswerGiven,
    MessageSent,
    ModelCallStarted,
    OutputEmitted,
    TimerFired,
    ToolCallBlocked,
    ToolCallReturned,
    TurnEnded,
    TurnFailed,
    TurnStarted,
)
from teamwire.router.states import AgentState, Delivery

A = AgentState.ABSENT
I = AgentState.IDLE  # noqa: E741
R = AgentState.RUNNING
C = AgentState.CLOSING
W = AgentState.WAITING
D = AgentState.COMPLETED
T = AgentState.TERMINATED

TRANSITIONS: dict[tuple[AgentState, type[AgentEvent]], frozenset[AgentState]] = {
    (A, AgentCreated): frozenset({I}),
    (I, TurnStarted): frozenset({R}),
    (D, TurnStarted): frozenset({R}),
    (R, ModelCallStarted): frozenset({R}),
    (R, OutputEmitted): frozenset({R, C}),
    (R, ToolCallReturned): frozenset({R}),
    (R, ToolCallBlocked): frozenset({W, R}),
    (R, MessageSent): frozenset({R}),
    (R, AnswerGiven): frozenset({R}),
    (R, TurnEnded): frozenset({D, R}),
    (C, TurnEnded): frozenset({D, R}),
    (R, TurnFailed): frozenset({D, R}),
    (C, TurnFailed): frozenset({D, R}),
    (W, TurnFailed): frozenset({D, R}),
    (I, AgentTerminated): frozenset({T}),
    (R, AgentTerminated): frozenset({T}),
    (C, AgentTerminated): frozenset({T}),
    (W, AgentTerminated): frozenset({T}),
    (D, AgentTerminated): frozenset({T}),
    # A timer that fires after its ask was answered is stale and changes nothing.
    (I, TimerFired): frozenset({I}),
    (R, TimerFired): frozenset({R}),
    (C, TimerFired): frozenset({C}),
    (W, TimerFired): frozenset({W, R}),
    (D, TimerFired): frozenset({D}),
    (T, TimerFired): frozenset({T}),
}

DELIVERY: dict[AgentState, tuple[Delivery, AgentState]] = {
    I: (Delivery.NEW_TURN, R),
    D: (Delivery.NEW_TURN, R),
    R: (Delivery.INLINE, R),
    # closing is reported as running, so its delivery reads inline (TW-TOOL-012); the message
    # waits in the queue and starts a new turn when this one ends (TW-ROUTE-011)
    C: (Delivery.INLINE, C),
    W: (Delivery.QUEUED, W),
    T: (Delivery.REJECTED, T),
}
"""Receiver state → (how a message is delivered, receiver state afterwards).

A waiting receiver's matching answer is not a message of this table: it
resolves the blocked call (``ANSWER_RESOLVES``).
"""

ANSWER_RESOLVES: tuple[AgentState, AgentState] = (W, R)
"""An answer to the open ask of a waiting agent resolves the call: waiting → running."""

ENDS_WITH_PENDING: tuple[frozenset[AgentState], AgentState] = (frozenset({I, D}), R)
"""Re-checked after every event: an idle or completed agent with pending messages starts a
turn with all of them (this is how a message that arrived during a final turn is delivered)."""

RESTART: dict[AgentState, AgentState] = {
    I: I,
    R: R,
    C: C,
    W: W,
    D: D,
    T: T,
}


def legal_events(state: AgentState) -> list[type[AgentEvent]]:
    """The event types that are legal for a subject in ``state``."""
    return [event for (s, event) in TRANSITIONS if s is state]
