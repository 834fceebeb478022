"""Render an Envelope as canonical text."""

from __future__ import annotations

import re

from teamwire.envelope.ids import MESSAGE_ID
from teamwire.envelope.model import Envelope

_HEADER_NAME = re.compile(r"(?:(?! 向 | 的)[^\n<>])+")
_TAG = re.compile(r"[A-Za-z][A-Za-z0-9_-]*")
_ATTR_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.-]*")
_LABEL = re.compile(r"[^\n]+")


class RenderError(ValueError):
    """An Envelope whose fields cannot be written as an envelope that parses back to it."""


# One pattern over the fields joined by LF accepts exactly when every field would:
# none of the field patterns admits an LF, so the joins cannot shift.
_FIELDS_OK = re.compile(
    r"(?! 向 | 的)(?=[^\n])[^\n <>]*(?: (?!向 |的)[^\n <>]*)*(?<! 向)\n"  # sender
    r"[^\n]+\n"  # label
    r"[^\s<>\"]+\n"  # id
    r"[A-Za-z][A-Za-z0-9_-]*"  # tag
)


def render(envelope: Envelope) -> str:
    """The canonical text of ``envelope`` (LF line breaks, no trailing newline).

    ``parse(render(e)) == e`` for every envelope this accepts; fields that could
    not survive the round trip raise RenderError.
    """
    fields = f"{envelope.sender}\n{envelope.label}\n{envelope.id}\n{envelope.tag}"
    if (envelope.attributes or envelope.receiver is not None
            or not _FIELDS_OK.fullmatch(fields)):
        _check(envelope)  # the slow path names the field at fault
    header_to = f" 向 {envelope.receiver}" if envelope.receiver is not None else ""
    attrs = "".join(f' {name}="{value}"' for name, value in envelope.attributes)
    return (
        f"来自 {envelope.sender}{header_to} 的{envelope.label}\n"
        f"id: {envelope.id}\n"
        f"\n"
        f"<{envelope.sender}>\n"
        f"<{envelope.tag}{attrs}>\n"
        f"{envelope.content}\n"
        f"</{envelope.tag}>\n"
        f"</{envelope.sender}>"
    )


def _check(envelope: Envelope) -> None:
    for what, value in (("sender", envelope.sender), ("receiver", envelope.receiver)):
        # A trailing " 向" would merge with the delimiter that follows into " 向 ".
        if value is not None and (not _HEADER_NAME.fullmatch(value) or value.endswith(" 向")):
            raise RenderError(f"{what} {value!r} cannot be written in a header and a tag")
    if not _LABEL.fullmatch(envelope.label):
        raise RenderError(f"label {envelope.label!r} must be one non-empty line")
    if not MESSAGE_ID.fullmatch(envelope.id):
        raise RenderError(f"id {envelope.id!r} must be non-empty with no space, '<', '>' or '\"'")
    if not _TAG.fullmatch(envelope.tag):
        raise RenderError(f"tag {envelope.tag!r} is not a tag name")
    seen: set[str] = set()
    for name, value in envelope.attributes:
        if not _ATTR_NAME.fullmatch(name) or name in seen:
            raise RenderError(f"attribute name {name!r} is invalid or repeated")
        if '"' in value or "\n" in value:
            raise RenderError(f"attribute {name!r} value may not hold '\"' or a line break")
        seen.add(name)
