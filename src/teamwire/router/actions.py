"""Actions: what the core asks its host to do, in the order given.

Store actions (``PersistMessage``, ``ConsumeMessages``, ``DiscardMessages``,
``PersistAgent``) come first in every list; a host commits them in one
transaction before it performs any other action, so that a message is durable
before its send is acknowledged and a consumption is durable together with
the delivery it produced.
"""

from __future__ import annotations

from dataclasses import dataclass

from teamwire.router.records import AgentRecord, RoutedMessage


@dataclass(frozen=True)
class PersistMessage:
    """Store a new message (pending until consumed)."""

    message: RoutedMessage


@dataclass(frozen=True)
class ConsumeMessages:
    """Mark messages as delivered to ``agent`` (same transaction as the delivery)."""

    agent: str
    message_ids: tuple[str, ...]


@dataclass(frozen=True)
class DiscardMessages:
    """Mark messages as never to be delivered: their receiver was terminated."""

    agent: str
    message_ids: tuple[str, ...]


@dataclass(frozen=True)
class PersistAgent:
    """Store an agent's record (state, open ask, counters)."""

    record: AgentRecord


@dataclass(frozen=True)
class StartTurn:
    """Start a turn of ``agent`` whose first user messages are ``messages``."""

    agent: str
    messages: tuple[RoutedMessage, ...]

    @property
    def texts(self) -> tuple[str, ...]:
        """The envelope texts, one user message each."""
        return tuple(m.text for m in self.messages)


@dataclass(frozen=True)
class AppendInline:
    """Append ``messages`` as user messages before the next model call of running ``agent``."""

    agent: str
    messages: tuple[RoutedMessage, ...]

    @property
    def texts(self) -> tuple[str, ...]:
        """The envelope texts, one user message each."""
        return tuple(m.text for m in self.messages)


@dataclass(frozen=True)
class ResolveToolCall:
    """Return ``message`` (an Answer) as the result of the blocked ask ``call_id`` of ``agent``."""

    agent: str
    call_id: str
    message: RoutedMessage

    @property
    def text(self) -> str:
        """The Answer envelope text, the tool result."""
        return self.message.text


@dataclass(frozen=True)
class FailToolCall:
    """Give tool call ``call_id`` of ``agent`` the common error result."""

    agent: str
    call_id: str | None
    code: str
    message: str
    candidates: tuple[tuple[int, str, str], ...] = ()


@dataclass(frozen=True)
class AcknowledgeSend:
    """The message ``message_id`` sent by tool call ``call_id`` of ``agent`` is accepted.

    ``delivery`` says how it reaches its receiver; ``duplicate`` is true when
    the id was already used and the send was dropped as a repeat.
    """

    agent: str
    call_id: str | None
    message_id: str
    receiver: str
    delivery: str | None
    duplicate: bool = False


@dataclass(frozen=True)
class StartTimer:
    """Fire ``TimerFired(agent, call_id)`` after ``seconds``."""

    agent: str
    call_id: str
    seconds: float


@dataclass(frozen=True)
class CancelTimer:
    """The timer of ask ``call_id`` of ``agent`` is no longer needed."""

    agent: str
    call_id: str


StoreAction = PersistMessage | ConsumeMessages | DiscardMessages | PersistAgent
EffectAction = (StartTurn | AppendInline | ResolveToolCall | FailToolCall | AcknowledgeSend
                | StartTimer | CancelTimer)
Action = StoreAction | EffectAction

STORE_ACTION_TYPES = (PersistMessage, ConsumeMessages, DiscardMessages, PersistAgent)
