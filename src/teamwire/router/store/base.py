"""The store interface: what a durable backend must do for the router.

A store applies the store actions of one or more events in one transaction
(``apply``), loads a ``Snapshot`` to restart from (``load``) and reports the
history of deliveries (``history``). That is all: a second backend (Redis, a
server database) implements these four methods.
"""

from __future__ import annotations

import abc
import enum
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from teamwire.envelope import MessageType
from teamwire.router.actions import (
    STORE_ACTION_TYPES,
    Action,
    ConsumeMessages,
    DiscardMessages,
    PersistAgent,
    PersistMessage,
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
    """Position in the store's delivery log (increasing)."""


@dataclass
class Changes:
    """The store actions of a batch, grouped so a backend can write them in bulk."""

    messages: list[RoutedMessage]
    consumed: list[str]
    discarded: list[str]
    agents: dict[str, AgentRecord]

    @classmethod
    def collect(cls, batches: Iterable[Sequence[Action]]) -> Changes:
        changes = cls([], [], [], {})
        for actions in batches:
            for action in actions:
                if not isinstance(action, STORE_ACTION_TYPES):
                    continue
                if isinstance(action, PersistMessage):
                    changes.messages.append(action.message)
                elif isinstance(action, ConsumeMessages):
                    changes.consumed.extend(action.message_ids)
                elif isinstance(action, DiscardMessages):
                    changes.discarded.extend(action.message_ids)
                elif isinstance(action, PersistAgent):
                    changes.agents[action.record.name] = action.record
        return changes

    def __bool__(self) -> bool:
        return bool(self.messages or self.consumed or self.discarded or self.agents)


class Store(abc.ABC):
    """A durable home for the router's queues and agent records."""

    def apply(self, actions: Sequence[Action]) -> None:
        """Commit the store actions among ``actions`` in one transaction (others are ignored)."""
        self.apply_batch((actions,))

    @abc.abstractmethod
    def apply_batch(self, batches: Iterable[Sequence[Action]]) -> None:
        """Commit the store actions of several events in one transaction."""

    @abc.abstractmethod
    def load(self) -> Snapshot:
        """The state to restart from: agents, undelivered messages, every used id."""

    @abc.abstractmethod
    def history(self) -> list[HistoryEntry]:
        """Every delivered or discarded message, in the order it left its queue."""

    def close(self) -> None:  # noqa: B027 - optional for backends without resources
        """Release the store's resources."""


def record_to_json(record: AgentRecord) -> dict[str, Any]:
    """A JSON-ready form of an agent record."""
    data: dict[str, Any] = {"name": record.name, "role_id": record.role_id,
                            "state": record.state.value, "turns": record.turns}
    if record.rounds:
        data["rounds"] = [[target, count] for target, count in record.rounds]
    if record.ask is not None:
        ask = record.ask
        data["ask"] = {"call_id": ask.call_id, "target": ask.target,
                       "question_id": ask.question_id, "kind": ask.kind.value,
                       "timeout": ask.timeout, "delivered": ask.delivered}
    return data


def record_from_json(data: dict[str, Any]) -> AgentRecord:
    """The inverse of ``record_to_json``."""
    ask = None
    if "ask" in data:
        raw = data["ask"]
        ask = OpenAsk(raw["call_id"], raw["target"], raw["question_id"], AskKind(raw["kind"]),
                      raw["timeout"], raw["delivered"])
    rounds = tuple((str(t), int(n)) for t, n in data.get("rounds", ()))
    return AgentRecord(data["name"], data["role_id"], AgentState(data["state"]), ask, rounds,
                       int(data.get("turns", 0)))
