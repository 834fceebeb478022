"""The reference router: a sans-I/O routing core, durable stores and an asyncio runtime.

The core (``RoutingCore``) takes events and returns actions; it does no I/O
and reads no clock. ``teamwire.router.store`` persists what the actions ask
to persist; ``teamwire.router.runtime`` hosts agents in asyncio around it.
"""

from __future__ import annotations

from teamwire.router.actions import (
    AcknowledgeSend,
    Action,
    AppendInline,
    CancelTimer,
    ConsumeMessages,
    DiscardMessages,
    FailToolCall,
    PersistAgent,
    PersistMessage,
    ResolveToolCall,
    StartTimer,
    StartTurn,
)
from teamwire.router.core import Router, RoutingCore
from teamwire.router.errors import LocalProtocolError, TargetError
from teamwire.router.events import (
    AgentCreated,
    AgentTerminated,
    AnswerGiven,
    Event,
    MessageSent,
    ModelCallStarted,
    OutputEmitted,
    Restarted,
    TimerFired,
    ToolCallBlocked,
    ToolCallReturned,
    TurnEnded,
    TurnStarted,
)
from teamwire.router.records import AgentRecord, AskKind, OpenAsk, RoutedMessage, Snapshot
from teamwire.router.states import AgentState, Delivery

__all__ = [
    "AcknowledgeSend",
    "Action",
    "AgentCreated",
    "AgentRecord",
    "AgentState",
    "AgentTerminated",
    "AnswerGiven",
    "AppendInline",
    "AskKind",
    "CancelTimer",
    "ConsumeMessages",
    "Delivery",
    "DiscardMessages",
    "Event",
    "FailToolCall",
    "LocalProtocolError",
    "MessageSent",
    "ModelCallStarted",
    "OpenAsk",
    "OutputEmitted",
    "PersistAgent",
    "PersistMessage",
    "ResolveToolCall",
    "Restarted",
    "RoutedMessage",
    "Router",
    "RoutingCore",
    "Snapshot",
    "StartTimer",
    "StartTurn",
    "TargetError",
    "TimerFired",
    "ToolCallBlocked",
    "ToolCallReturned",
    "TurnEnded",
    "TurnStarted",
]
