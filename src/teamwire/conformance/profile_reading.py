"""Envelopes as profile astrion reads them (TW-CERT-027).

A router of profile astrion may write astrion's own envelope forms (chapter 12): a header that
names the receiver (``来自 A 向 B 的…``), a ``target`` or ``subtype`` attribute, a
``question_id`` on a tag other than ``Answer``, the completion label ``任务结束汇报``. The
profile gives each the meaning of a ``strict`` form. Before a scenario's expected messages,
written in ``strict`` forms, are compared with what such a router appended, each envelope it
appended is read as the profile reads it and rendered again in its ``strict`` form; an
envelope the profile finds invalid (a receiver that differs between header and ``target``, a
``subtype`` that contradicts the type) is left as it was sent, so that it does not match.
"""

from __future__ import annotations

from typing import Any

from teamwire.envelope import (
    LEADER_NAME,
    Envelope,
    MessageType,
    ParseError,
    Profile,
    is_envelope,
    parse,
    render,
)
from teamwire.envelope.types import ASTRION_SUBTYPES


def strict_form(text: str, reader: str) -> str:
    """``text`` with an envelope in astrion's forms rendered in its ``strict`` form, as the
    agent ``reader`` (whose conversation holds it) reads it in profile astrion; any other
    text, and an envelope the profile finds invalid, unchanged."""
    if not is_envelope(text):
        return text
    try:
        envelope = parse(text)
    except ParseError:
        return text
    read = _read(envelope, reader)
    if read is None or read == envelope:
        return text
    try:
        return render(read)
    except ValueError:
        return text


def _read(envelope: Envelope, reader: str) -> Envelope | None:
    """The ``strict`` envelope of the same meaning; None when profile astrion finds the
    envelope invalid."""
    attributes = dict(envelope.attributes)
    target = attributes.pop("target", None)
    subtype = attributes.pop("subtype", None)
    if envelope.tag != "Answer":
        attributes.pop("question_id", None)  # TW-PROF-009
    receiver = envelope.receiver
    if target is not None and receiver is not None and target != receiver:
        return None  # TW-PROF-007
    receiver = receiver or target
    if receiver is not None and receiver != reader:
        return None  # the envelope names another receiver than the one it reached
    label = envelope.label
    kind = MessageType.from_label(label, Profile.ASTRION)
    required = ASTRION_SUBTYPES.get(subtype) if subtype is not None else None
    if required is not None:  # TW-PROF-008
        mtype, to_leader = required
        if kind is not mtype or (to_leader is not None and (reader == LEADER_NAME) is not to_leader):
            return None
    if kind is MessageType.COMPLETION:
        label = MessageType.COMPLETION.label  # TW-PROF-010
    kept = tuple((k, v) for k, v in envelope.attributes if k in attributes)
    return Envelope(sender=envelope.sender, label=label, id=envelope.id, tag=envelope.tag,
                    content=envelope.content, attributes=kept, receiver=None)


def read_messages(messages: list[Any], reader: str) -> list[Any]:
    """Chat messages with every user message's envelope in its ``strict`` form
    (``strict_form``); the other messages unchanged."""
    out = []
    for message in messages:
        if isinstance(message, dict) and message.get("role") == "user" \
                and isinstance(message.get("content"), str):
            message = {**message, "content": strict_form(message["content"], reader)}
        elif isinstance(message, dict) and message.get("role") == "user" \
                and isinstance(message.get("content"), dict):
            message = {**message, "content": _strict_label(message["content"])}
        out.append(message)
    return out


def _strict_label(content: dict[str, Any]) -> dict[str, Any]:
    """A run result's envelope as the checks compare it (sender, label, id, tag): with the
    completion label ``任务结束汇报`` read as ``任务完成汇报`` (TW-PROF-010)."""
    head = content.get("envelope")
    if not isinstance(head, list) or len(head) != 4 or not isinstance(head[1], str):
        return content
    if MessageType.from_label(head[1], Profile.ASTRION) is not MessageType.COMPLETION:
        return content
    return {**content, "envelope": [head[0], MessageType.COMPLETION.label, *head[2:]]}


ASTRION_STATUSES: dict[str, str] = {"waiting": "running", "completed": "idle"}
"""The states TW-ROUTE-001 names that astrion shows by another name (TW-PROF-039)."""


def astrion_statuses(value: Any) -> Any:
    """``value`` with every ``status`` member named as astrion names it (TW-PROF-039), so
    that a status compares equal under either name; an optional member's value too."""
    if isinstance(value, list):
        return [astrion_statuses(v) for v in value]
    if not isinstance(value, dict):
        return value
    out = {}
    for key, member in value.items():
        if key == "status" and isinstance(member, str):
            member = ASTRION_STATUSES.get(member, member)
        elif key == "status" and isinstance(member, dict) and len(member) == 1:
            [(marker, inner)] = member.items()
            member = {marker: ASTRION_STATUSES.get(inner, inner) if isinstance(inner, str)
                      else astrion_statuses(inner)}
        else:
            member = astrion_statuses(member)
        out[key] = member
    return out


def with_astrion_statuses(messages: list[Any]) -> list[Any]:
    """Chat messages with every tool result's statuses as astrion names them."""
    return [{**m, "json": astrion_statuses(m["json"])}
            if isinstance(m, dict) and m.get("role") == "tool" and "json" in m else m
            for m in messages]
