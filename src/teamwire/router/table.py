"""Every transition of the routing core, in one place: the table the core runs on.

``EVENT_TRIGGERED`` maps a state to the events legal in it and the state each
leads to. ``RoutingCore.handle`` looks the subject's state and the event's type
up in it: no entry, and the event is illegal (``LocalProtocolError``); else the
entry is the subject's next state. Where an event's content picks among
several next states, its handler reports an ``Outcome`` and the entry keyed
``(event type, outcome)`` decides instead (an ask that fails at once leaves its
caller running; one that is accepted makes it wait). Rows keyed by an
``Outcome`` alone are transitions of an agent that is not the event's subject
(an answer, a termination or the end of its answerer's turn resolves another
agent's ask); rows keyed
``(Restarted, persisted state)`` restore an agent from a snapshot.

``STATE_TRIGGERED`` holds the transitions that no event names: re-checked
after every event, an agent in one of its states whose pending queue is not
empty moves on at once (an idle or completed agent with messages starts a turn
with all of them, TW-ROUTE-009, TW-ROUTE-011).

``DELIVERY`` is the receiver-state decision table: how a message reaches an
agent in each state, and the state the receiver is in afterwards.

``TRANSITIONS``, ``RESTART``, ``ANSWER_RESOLVES`` and ``ENDS_WITH_PENDING`` are
views of these tables in the specification's terms: for each (state, event
type), every state the subject may be in once the core is done with the event.
"""

from __future__ import annotations

import enum

from teamwire.router.events import (
    AGENT_EVENT_TYPES,
    AgentCreated,
    AgentEvent,
    AgentTerminated,
    AnswerGiven,
    MessageSent,
    ModelCallStarted,
    OutputEmitted,
    Restarted,
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


class Outcome(enum.Enum):
    """What an event's content decided, where its state lists more than one next state."""

    FINAL = "final"
    """OutputEmitted: the reply called no tool, so the turn can only end."""
    ACCEPTED = "accepted"
    """ToolCallBlocked: the router accepted the ask; its caller waits."""
    ASK_RESOLVED = "ask-resolved"
    """The pending ask is over: answered, timed out, or its answerer was terminated."""


EventKey = type[AgentEvent] | tuple[type[AgentEvent], Outcome] | Outcome \
    | tuple[type[Restarted], AgentState]
"""A key of a row of ``EVENT_TRIGGERED``."""

RESTART: dict[AgentState, AgentState] = {I: I, R: R, C: C, W: W, D: D, T: T}
"""Persisted state → the state it is restored in: every state is kept; a running agent
repeats the model call that was in progress, a waiting agent keeps waiting for its
restored ask."""

EVENT_TRIGGERED: dict[AgentState, dict[EventKey, AgentState]] = {
    A: {
        AgentCreated: I,  # TW-ROUTE-002
        **{(Restarted, persisted): restored for persisted, restored in RESTART.items()},
    },
    I: {TurnStarted: R, AgentTerminated: T, TimerFired: I},
    R: {
        ModelCallStarted: R,
        OutputEmitted: R,
        (OutputEmitted, Outcome.FINAL): C,
        ToolCallReturned: R,
        # an ask that fails at once (an error result) leaves its caller running
        ToolCallBlocked: R,
        (ToolCallBlocked, Outcome.ACCEPTED): W,
        MessageSent: R,
        AnswerGiven: R,
        TurnEnded: D,
        TurnFailed: D,
        AgentTerminated: T,
        TimerFired: R,
    },
    # running, but the turn's last reply called no tool: only its end can follow
    C: {TurnEnded: D, TurnFailed: D, AgentTerminated: T, TimerFired: C},
    W: {
        TurnFailed: D,
        AgentTerminated: T,
        # a timer that fires after its ask was answered is stale and changes nothing
        TimerFired: W,
        (TimerFired, Outcome.ASK_RESOLVED): R,
        Outcome.ASK_RESOLVED: R,
    },
    D: {TurnStarted: R, AgentTerminated: T, TimerFired: D},
    # TW-ROUTE-004: terminated is final; only a stale timer still arrives
    T: {TimerFired: T},
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

The core routes every message by its row: the delivery is what an acknowledgment names, a
``REJECTED`` row refuses the message (``agent-terminated``), a ``NEW_TURN`` row starts a
turn with the queue (``STATE_TRIGGERED``), and any other row whose state afterwards differs
moves the receiver there. A waiting receiver's matching answer is not a message of this
table: it resolves the blocked call (``ANSWER_RESOLVES``).
"""

STATE_TRIGGERED: dict[AgentState, AgentState] = {
    state: after for state, (delivery, after) in DELIVERY.items()
    if delivery is Delivery.NEW_TURN}
"""State → the state an agent in it moves to as soon as its pending queue is not empty: the
``NEW_TURN`` rows of ``DELIVERY``."""

HOLDS_QUEUE = frozenset(state for state, (delivery, after) in DELIVERY.items()
                        if delivery in (Delivery.INLINE, Delivery.QUEUED) and after is state)
"""States in which a new message only joins the queue: the only states that keep a
non-empty pending queue from one event to the next."""

ANSWER_RESOLVES: tuple[AgentState, AgentState] = (W, EVENT_TRIGGERED[W][Outcome.ASK_RESOLVED])
"""An answer to the open ask of a waiting agent resolves the call: waiting → running."""

ENDS_WITH_PENDING: tuple[frozenset[AgentState], AgentState] = (frozenset(STATE_TRIGGERED), R)
"""Re-checked after every event: an idle or completed agent with pending messages starts a
turn with all of them (this is how a message that arrived during a final turn is delivered)."""


def _subject_outcomes() -> dict[tuple[AgentState, type[AgentEvent]], frozenset[AgentState]]:
    """(state, event type) → every state the subject may end in, state-triggered moves included.

    An agent can only hold pending messages in a state of ``HOLDS_QUEUE``: entering a
    state of ``STATE_TRIGGERED`` from one, it may move on at once.
    """
    found: dict[tuple[AgentState, type[AgentEvent]], frozenset[AgentState]] = {}
    for event in AGENT_EVENT_TYPES:
        for state in AgentState:
            outcomes: set[AgentState] = set()
            for key, after in EVENT_TRIGGERED.get(state, {}).items():
                if key is event or (isinstance(key, tuple) and key[0] is event):
                    outcomes.add(after)
                    if state in HOLDS_QUEUE and after in STATE_TRIGGERED:
                        outcomes.add(STATE_TRIGGERED[after])
            if outcomes:
                found[(state, event)] = frozenset(outcomes)
    return found


TRANSITIONS: dict[tuple[AgentState, type[AgentEvent]], frozenset[AgentState]] = \
    _subject_outcomes()
"""(state of the event's subject, event type) → the states the subject may be in afterwards;
a pair missing from it is illegal. Derived from ``EVENT_TRIGGERED`` and ``STATE_TRIGGERED``."""


def legal_events(state: AgentState) -> list[type[AgentEvent]]:
    """The event types that are legal for a subject in ``state``."""
    return [event for (s, event) in TRANSITIONS if s is state]


__all__ = [
    "ANSWER_RESOLVES",
    "DELIVERY",
    "ENDS_WITH_PENDING",
    "EVENT_TRIGGERED",
    "HOLDS_QUEUE",
    "RESTART",
    "STATE_TRIGGERED",
    "TRANSITIONS",
    "EventKey",
    "Outcome",
    "legal_events",
]
