"""The store interface: what a durable backend must do for the router.

A store applies the store actions of one or more events in one transaction
(``apply_batch``), loads a ``Snapshot`` to restart the core from (``load``),
gives back what a host keeps beside the core (``conversations``,
``settings``) and reports the history of deliveries (``history``). A second
backend (Redis, a server database) implements these five methods.
"""

from __future__ import annotations

import abc
import enum
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from teamwire.envelope import MessageType
from teamwire.router.actions import (
    STORE_ACTION_TYPES,
    AcknowledgeSend,
    Action,
    AppendConversation,
    ConsumeMessages,
    DiscardMessages,
    FailToolCall,
    PersistAgent,
    PersistAskFailure,
    PersistMessage,
    PersistSetting,
    ResolveToolCall,
    ToolCallResult,
)
from teamwire.router.records import AgentRecord, AskKind, OpenAsk, RoutedMessage, Snapshot
from teamwire.router.states import AgentState


class MessageStatus(enum.IntEnum):
    """Where a stored message stands."""

    PENDING = 0
    DELIVERED = 1
    DISCARDED = 2
    """Its receiver was terminated before it could be delivered."""


@dataclass(frozen=True)
class HistoryEntry:
    """One message that left its queue, in the order the store recorded it."""

    message_id: str
    kind: MessageType
    sender: str
    receiver: str
    seq: int
    status: MessageStatus
    order: int
    """Position in the store's delivery log: 1 for the first message that left its queue,
    then 2, 3… in every store."""


@dataclass(frozen=True)
class StoredMessage:
    """A message as a store keeps it: with its acknowledgment and, for an ask, its failure."""

    message: RoutedMessage
    ack: str | None = None
    failure: tuple[str, str] | None = None
    """(code, message) when the message was an ask that failed after it was accepted."""


_OTHER_STORE_KINDS = frozenset(STORE_ACTION_TYPES) - {PersistMessage}


class Changes:
    """The store actions of a batch, grouped so that a backend can write them in bulk."""

    __slots__ = ("agents", "consumed", "conversation", "discarded", "failures", "messages",
                 "settings")

    def __init__(self) -> None:
        self.messages: list[PersistMessage] = []
        self.consumed: list[str] = []
        self.discarded: list[str] = []
        self.failures: list[PersistAskFailure] = []
        self.agents: dict[str, AgentRecord] = {}
        self.conversation: list[AppendConversation] = []
        self.settings: dict[str, Any] = {}

    @classmethod
    def collect(cls, batches: Iterable[Sequence[Action]]) -> Changes:
        """Group the store actions of ``batches``; every other action is skipped."""
        changes = cls()
        batches = batches if isinstance(batches, (list, tuple)) else list(batches)
        # two comprehensions instead of one loop: messages are most of the actions
        changes.messages = [a for actions in batches for a in actions
                            if type(a) is PersistMessage]
        others = [a for actions in batches for a in actions if type(a) in _OTHER_STORE_KINDS]
        for action in others:
            kind = type(action)
            if kind is ConsumeMessages:
                changes.consumed.extend(action.message_ids)  # type: ignore[union-attr]
            elif kind is PersistAgent:
                record = action.record  # type: ignore[union-attr]
                changes.agents[record.name] = record
            elif kind is AppendConversation:
                changes.conversation.append(action)  # type: ignore[arg-type]
            elif kind is DiscardMessages:
                changes.discarded.extend(action.message_ids)  # type: ignore[union-attr]
            elif kind is PersistAskFailure:
                changes.failures.append(action)  # type: ignore[arg-type]
            elif kind is PersistSetting:
                changes.settings[action.key] = action.value  # type: ignore[union-attr]
        return changes

    def __bool__(self) -> bool:
        return bool(self.messages or self.consumed or self.discarded or self.failures
                    or self.agents or self.conversation or self.settings)


class Store(abc.ABC):
    """A durable home for the router's queues, agent records and the host's conversations."""

    def apply(self, actions: Sequence[Action]) -> None:
        """Commit the store actions among ``actions`` in one transaction (others are ignored)."""
        self.apply_batch((actions,))

    @abc.abstractmethod
    def apply_batch(self, batches: Iterable[Sequence[Action]]) -> None:
        """Commit the store actions of several events in one transaction."""

    @abc.abstractmethod
    def load(self) -> Snapshot:
        """The state to restart from: agents, undelivered messages, used ids, call results."""

    @abc.abstractmethod
    def conversations(self) -> dict[str, list[dict[str, Any]]]:
        """Every stored conversation (``AppendConversation``), by agent, in order."""

    @abc.abstractmethod
    def settings(self) -> dict[str, Any]:
        """Every stored host setting (``PersistSetting``)."""

    @abc.abstractmethod
    def history(self) -> list[HistoryEntry]:
        """Every delivered or discarded message, in the order it left its queue."""

    def close(self) -> None:  # noqa: B027 - optional for backends without resources
        """Release the store's resources."""


def stored_results(messages: Iterable[StoredMessage]) -> tuple[ToolCallResult, ...]:
    """The results of the tool calls that produced ``messages`` (for ``Snapshot.results``).

    A send or an answer tool call has its acknowledgment; an ask has its
    answer, or its failure; an ask still pending has no result yet.
    """
    rows = sorted(messages, key=lambda s: s.message.seq)
    answers = {(s.message.question_id, s.message.receiver): s.message for s in rows
               if s.message.kind is MessageType.ANSWER}
    results: list[ToolCallResult] = []
    for stored in rows:
        m = stored.message
        if m.call_id is None:
            continue
        if stored.ack is not None:
            results.append(AcknowledgeSend(m.sender, m.call_id, m.id, m.receiver, stored.ack))
        elif stored.failure is not None:
            results.append(FailToolCall(m.sender, m.call_id, *stored.failure))
        else:
            answer = answers.get((m.id, m.sender))
            if answer is not None:
                results.append(ResolveToolCall(m.sender, m.call_id, answer))
    return tuple(results)


def stored_questions(messages: Iterable[StoredMessage],
                     delivered: Callable[[str], bool]) -> tuple[tuple[str, str, str, bool], ...]:
    """(question id, asker, answerer, received) of every ask stored among ``messages``.

    An ask is a message of an ask tool call: an ASK or MESSAGE with a ``call_id`` and no
    acknowledgment (sends are acknowledged). ``delivered`` says whether an id was delivered.
    """
    return tuple((s.message.id, s.message.sender, s.message.receiver, delivered(s.message.id))
                 for s in sorted(messages, key=lambda s: s.message.seq)
                 if s.message.call_id is not None and s.ack is None
                 and s.message.kind in (MessageType.ASK, MessageType.MESSAGE))


def message_columns(m: RoutedMessage) -> tuple[Any, ...]:
    """The stored columns of a message, in the order ``message_from_columns`` reads them."""
    return (m.id, m.seq, m.kind.name, m.sender, m.receiver, m.content, m.question_id,
            m.correlation_id, m.round, m.call_id)


def message_from_columns(row: Sequence[Any]) -> RoutedMessage:
    """The inverse of ``message_columns``."""
    id_, seq, kind, sender, receiver, content, question_id, correlation, round_, call_id = row
    return RoutedMessage(id_, MessageType[kind], sender, receiver, content, seq, question_id,
                         correlation, round_, call_id)


def record_to_json(record: AgentRecord) -> dict[str, Any]:
    """A JSON-ready form of an agent record."""
    data: dict[str, Any] = {"name": record.name, "role_id": record.role_id,
                            "state": record.state.value, "turns": record.turns}
    if record.task_id is not None:
        data["task_id"] = record.task_id
    if record.rounds:
        data["rounds"] = [[target, count, correlation]
                          for target, correlation, count in record.rounds]
    if record.ask is not None:
        ask = record.ask
        data["ask"] = {"call_id": ask.call_id, "target": ask.target,
                       "question_id": ask.question_id, "kind": ask.kind.value,
                       "timeout": ask.timeout, "delivered": ask.delivered,
                       "correlation_id": ask.correlation_id, "round": ask.round}
        if ask.deadline is not None:
            data["ask"]["deadline"] = ask.deadline
    return data


def record_from_json(data: dict[str, Any]) -> AgentRecord:
    """The inverse of ``record_to_json``."""
    ask = None
    if "ask" in data:
        raw = data["ask"]
        ask = OpenAsk(raw["call_id"], raw["target"], raw["question_id"], AskKind(raw["kind"]),
                      raw["timeout"], raw["delivered"], raw.get("correlation_id", ""),
                      int(raw.get("round", 1)), raw.get("deadline"))
    rounds = tuple((str(entry[0]), str(entry[2]), int(entry[1]))
                   for entry in data.get("rounds", ()))
    return AgentRecord(data["name"], data["role_id"], AgentState(data["state"]), ask, rounds,
                       int(data.get("turns", 0)), data.get("task_id"))
