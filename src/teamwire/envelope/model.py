"""The parsed form of one envelope."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from teamwire.envelope.types import MessageType, Profile


@dataclass(frozen=True, slots=True)
class Envelope:
    """One protocol message in its text form, parsed.

    ``attributes`` keeps the inner tag's attributes in their written order, so
    that rendering a parsed envelope gives back the same text.
    """

    sender: str
    label: str
    id: str
    tag: str
    content: str
    attributes: tuple[tuple[str, str], ...] = field(default=())
    receiver: str | None = None
    """Set only by the astrion header form ``来自 A 向 B 的…``."""

    @property
    def attrs(self) -> dict[str, str]:
        """The inner tag's attributes as a mapping."""
        return dict(self.attributes)

    @property
    def question_id(self) -> str | None:
        """The ``question_id`` attribute (Answer envelopes), if present."""
        return self.attrs.get("question_id")

    def message_type(self, profile: Profile = Profile.STRICT) -> MessageType | None:
        """The type the header label names under ``profile``; None for an unknown label."""
        return MessageType.from_label(self.label, profile)

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready mapping of every field (the CLI's output form)."""
        data: dict[str, Any] = {
            "sender": self.sender,
            "label": self.label,
            "id": self.id,
            "tag": self.tag,
            "attributes": dict(self.attributes),
            "content": self.content,
        }
        if self.receiver is not None:
            data["receiver"] = self.receiver
        mtype = self.message_type(Profile.ASTRION)
        data["type"] = mtype.name.lower() if mtype else None
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Envelope:
        """Build an envelope from ``to_json`` output (``type`` is derived, so ignored)."""
        attributes = data.get("attributes") or {}
        if not isinstance(attributes, dict):
            raise ValueError("'attributes' must be an object")
        fields = {}
        missing = [k for k in ("sender", "label", "id", "tag", "content") if k not in data]
        if missing:
            raise ValueError(f"missing {', '.join(repr(k) for k in missing)}: an envelope needs "
                             "'sender', 'label', 'id', 'tag' and 'content'")
        for key in ("sender", "label", "id", "tag", "content"):
            value = data[key]
            if not isinstance(value, str):
                raise ValueError(f"{key!r} must be a string, not "
                                 f"{'null' if value is None else type(value).__name__}")
            fields[key] = value
        receiver = data.get("receiver")
        if receiver is not None and not isinstance(receiver, str):
            raise ValueError("'receiver' must be a string")
        pairs = []
        for name, value in attributes.items():
            if not isinstance(value, str):
                raise ValueError(f"attribute {name!r} must be a string")
            pairs.append((name, value))
        return cls(attributes=tuple(pairs), receiver=receiver, **fields)
