"""JSON forms of events and actions, as the event log writes them."""

from __future__ import annotations

import dataclasses
import enum
from typing import Any

from teamwire.envelope import MessageType
from teamwire.router.records import PROTOCOL_VERSION, AgentRecord, RoutedMessage, Snapshot
from teamwire.router.store.base import record_to_json


def message_to_json(message: RoutedMessage) -> dict[str, Any]:
    """A routed message in the structured form of the spec (``message.schema.json``).

    Besides the members of that schema it carries the router's ``seq`` and, for
    a message produced by a tool call, that call's ``call_id`` (TW-DUR-003).
    """
    data: dict[str, Any] = {"version": PROTOCOL_VERSION, "id": message.id,
                            "correlation_id": message.correlation_id or message.id,
                            "type": message.kind.name.lower(), "sender": message.sender,
                            "receiver": message.receiver, "content": message.content,
                            "round": message.round, "seq": message.seq}
    if message.question_id is not None:
        data["question_id"] = message.question_id
    if message.call_id is not None:
        data["call_id"] = message.call_id
    return data


def to_json(value: Any) -> Any:
    """A JSON-ready form of an event, an action or any of their fields."""
    if isinstance(value, RoutedMessage):
        return message_to_json(value)
    if isinstance(value, AgentRecord):
        return record_to_json(value)
    if isinstance(value, Snapshot):
        return {"agents": [record_to_json(r) for r in value.agents],
                "pending": [message_to_json(m) for m in value.pending],
                "ids": len(value.ids), "next_seq": value.next_seq,
                "results": len(value.results)}
    if isinstance(value, MessageType):
        return value.name.lower()
    if isinstance(value, enum.Enum):
        return value.value
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: to_json(getattr(value, f.name)) for f in dataclasses.fields(value)
                if not f.name.startswith("_")}
    if isinstance(value, (tuple, list)):
        return [to_json(v) for v in value]
    return value


def log_entry(seq: int, time: float, event: Any, actions: list[Any]) -> dict[str, Any]:
    """One line of the event log: the event and the actions it produced."""
    return {"seq": seq, "time": time, "event": type(event).__name__, "data": to_json(event),
            "actions": [{"action": type(a).__name__, **to_json(a)} for a in actions]}
