"""Actions: what the core asks its host to do, in the order given.

Store actions (``PersistMessage``, ``PersistAskFailure``, ``ConsumeMessages``,
``DiscardMessages``, ``PersistAgent``) come first in every list; a host
commits them in one transaction before it performs any other action, so that
a message is durable before its send is acknowledged and a consumption is
durable together with the delivery it produced. ``AppendConversation`` and
``PersistSetting`` are store actions too, but the core never emits them: a
host adds them to the same transaction for what it keeps itself (its agents'
conversations, its own settings).

Actions are slotted dataclasses without the frozen machinery, because the
core creates several per message; treat them as immutable. The results of tool
calls (``AcknowledgeSend``, ``ResolveToolCall``, ``FailToolCall``) are defined
with the records, since a snapshot keeps them, and are actions all the same.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from teamwire.router.records import (
    AcknowledgeSend,
    AgentRecord,
    FailToolCall,
    ResolveToolCall,
    RoutedMessage,
    ToolCallResult,
)


@dataclass(slots=True, unsafe_hash=True)
class PersistMessage:
    """Store a new message (pending until consumed).

    ``ack`` is the ``delivery`` of the acknowledgment its tool call received,
    stored so that the same call executed again gets the same answer
    (TW-DUR-003, TW-DEL-004); None for asks and natural output.
    """

    message: RoutedMessage
    ack: str | None = None


@dataclass(slots=True, unsafe_hash=True)
class PersistAskFailure:
    """Store that the accepted ask ``question_id`` of ``agent`` failed with ``code``."""

    agent: str
    call_id: str
    question_id: str
    code: str
    message: str


@dataclass(slots=True, unsafe_hash=True)
class ConsumeMessages:
    """Mark messages as delivered to ``agent`` (same transaction as the delivery)."""

    agent: str
    message_ids: tuple[str, ...]


@dataclass(slots=True, unsafe_hash=True)
class DiscardMessages:
    """Mark messages as never to be delivered: their receiver was terminated."""

    agent: str
    message_ids: tuple[str, ...]


@dataclass(slots=True, unsafe_hash=True)
class PersistAgent:
    """Store an agent's record (state, open ask, counters)."""

    record: AgentRecord


@dataclass(slots=True, eq=True)
class AppendConversation:
    """Store ``message`` as entry ``index`` (from 0) of the conversation of ``agent``.

    Emitted by hosts, not by the core: a delivery's consumption and the
    conversation entries it produced commit together (TW-DUR-002).
    """

    agent: str
    index: int
    message: dict[str, Any]


@dataclass(slots=True, eq=True)
class PersistSetting:
    """Store a host setting (JSON value) under ``key``. Emitted by hosts, not by the core."""

    key: str
    value: Any


@dataclass(slots=True, unsafe_hash=True)
class StartTurn:
    """Start a turn of ``agent`` whose first user messages are ``messages``."""

    agent: str
    messages: tuple[RoutedMessage, ...]

    @property
    def texts(self) -> tuple[str, ...]:
        """The envelope texts, one user message each."""
        return tuple(m.text for m in self.messages)


@dataclass(slots=True, unsafe_hash=True)
class AppendInline:
    """Append ``messages`` as user messages before the next model call of running ``agent``."""

    agent: str
    messages: tuple[RoutedMessage, ...]

    @property
    def texts(self) -> tuple[str, ...]:
        """The envelope texts, one user message each."""
        return tuple(m.text for m in self.messages)


@dataclass(slots=True, unsafe_hash=True)
class StartTimer:
    """Fire ``TimerFired(agent, call_id)`` after ``seconds``."""

    agent: str
    call_id: str
    seconds: float


@dataclass(slots=True, unsafe_hash=True)
class CancelTimer:
    """The timer of ask ``call_id`` of ``agent`` is no longer needed."""

    agent: str
    call_id: str


StoreAction = (PersistMessage | PersistAskFailure | ConsumeMessages | DiscardMessages
               | PersistAgent | AppendConversation | PersistSetting)
EffectAction = (StartTurn | AppendInline | ResolveToolCall | FailToolCall | AcknowledgeSend
                | StartTimer | CancelTimer)
Action = StoreAction | EffectAction


STORE_ACTION_TYPES = (PersistMessage, PersistAskFailure, ConsumeMessages, DiscardMessages,
                      PersistAgent, AppendConversation, PersistSetting)

__all__ = [
    "STORE_ACTION_TYPES",
    "AcknowledgeSend",
    "Action",
    "AppendConversation",
    "AppendInline",
    "CancelTimer",
    "ConsumeMessages",
    "DiscardMessages",
    "EffectAction",
    "FailToolCall",
    "PersistAgent",
    "PersistAskFailure",
    "PersistMessage",
    "PersistSetting",
    "ResolveToolCall",
    "StartTimer",
    "StartTurn",
    "StoreAction",
    "ToolCallResult",
]
