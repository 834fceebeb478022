"""Events: what happened, fed to the routing core. Each is a frozen dataclass named as a noun.

Most events have a *subject*, the agent whose state decides whether the event
is legal (``subject``, given by the bases ``AgentSubject`` and ``SenderSubject``); the
transition table in ``teamwire.router.table`` lists, for each state and event type, the
states the subject may end in.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, get_args

from teamwire.envelope import MessageType
from teamwire.router.records import Snapshot


@dataclass(frozen=True)
class AgentSubject:
    """An event whose subject is ``agent``."""

    agent: str
    SUBJECT_FIELD: ClassVar[str] = "agent"
    """The field that names the subject."""

    @property
    def subject(self) -> str:
        """The agent whose state decides whether the event is legal."""
        return self.agent


@dataclass(frozen=True)
class SenderSubject:
    """An event whose subject is its ``sender``."""

    sender: str
    SUBJECT_FIELD: ClassVar[str] = "sender"
    """The field that names the subject."""

    @property
    def subject(self) -> str:
        """The agent whose state decides whether the event is legal."""
        return self.sender


@dataclass(frozen=True)
class AgentCreated(AgentSubject):
    """An agent joins the session (the leader first; sub-agents by create_sub_agent)."""

    role_id: str


@dataclass(frozen=True)
class TurnStarted(AgentSubject):
    """The application starts a turn of an idle or completed agent (e.g. a human's request)."""


@dataclass(frozen=True)
class ModelCallStarted(AgentSubject):
    """A running agent is about to call its model: pending messages are drained inline."""


@dataclass(frozen=True)
class OutputEmitted(AgentSubject):
    """The model produced text. ``final`` is true when that reply called no tool (turn ends)."""

    text: str
    final: bool = False


@dataclass(frozen=True)
class ToolCallReturned(AgentSubject):
    """A non-blocking tool call of a running agent finished (counted, not routed)."""

    call_id: str


@dataclass(frozen=True)
class ToolCallBlocked(AgentSubject):
    """A running agent called an ask tool: it waits until ``target`` answers ``question_id``.

    The ask tool is implied by who asks whom: the leader asking uses
    ask_sub_agent, a sub-agent asking the leader ask_master, a sub-agent asking
    another ask_other_agent (a notification when the id starts with ``msg_``).
    ``timeout`` in seconds, or None for no time limit; ``now`` is the host's
    time, if it wants the ask's deadline kept across a restart (``Restarted.now``).
    """

    call_id: str
    target: str
    question_id: str
    content: str
    timeout: float | None = None
    now: float | None = None


@dataclass(frozen=True)
class MessageSent(SenderSubject):
    """The leader sends a Task or a Message to a sub-agent (create_sub_agent, send_message...).

    ``message_id`` may be chosen by the caller; a message id already used is
    dropped as a duplicate (idempotent enqueue). Without it the router
    allocates one.
    """

    receiver: str
    kind: MessageType
    content: str
    message_id: str | None = None
    call_id: str | None = None


@dataclass(frozen=True)
class AnswerGiven(SenderSubject):
    """``sender`` answers the ask ``question_id`` of ``receiver`` (answer tools)."""

    receiver: str
    question_id: str
    content: str
    call_id: str | None = None


@dataclass(frozen=True)
class TurnEnded(AgentSubject):
    """A running agent's turn is over (its model stopped calling tools)."""


@dataclass(frozen=True)
class TurnFailed(AgentSubject):
    """A turn ends abnormally: ``reason`` is ``"timeout"`` (turn timeout) or ``"error"``.

    A pending ask of the agent fails with ``timeout``; a sub-agent's leader
    gets a COMPLETION whose content is a run result with that state.
    """

    reason: str
    detail: str


@dataclass(frozen=True)
class AgentTerminated(AgentSubject):
    """A sub-agent is stopped for good (terminate_sub_agent, or its run timed out)."""


@dataclass(frozen=True)
class TimerFired(AgentSubject):
    """The time limit of the ask ``call_id`` of ``agent`` ran out (virtual time)."""

    call_id: str


@dataclass(frozen=True)
class Restarted:
    """The router restarts from a store's snapshot. Legal only on an empty core.

    ``now`` is the host's time: an ask whose deadline is known gets a timer for
    the time it has left, not its whole timeout.
    """

    snapshot: Snapshot
    now: float | None = None


AgentEvent = (AgentCreated | TurnStarted | ModelCallStarted | OutputEmitted | ToolCallReturned
              | ToolCallBlocked | MessageSent | AnswerGiven | TurnEnded | TurnFailed
              | AgentTerminated | TimerFired)
"""Events with a subject agent."""

Event = AgentEvent | Restarted
"""Every event the core accepts."""

AGENT_EVENT_TYPES: tuple[type[AgentEvent], ...] = get_args(AgentEvent)
"""The types ``AgentEvent`` unites, in its order: the list is written once, above."""
