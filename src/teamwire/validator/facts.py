"""The facts a conversation pass hands to rule checks, one per thing a message says.

A fact holds what its checks need and where a finding about it points: the message's
index and the pointer tail of the text (``text``) that offsets refer to.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar, NamedTuple

from teamwire.envelope import MessageType


class Owner(NamedTuple):
    """Whose conversation a fact is in, and under which profile (a tuple: cheap to make and
    to hash, as the memo's keys need)."""

    name: str | None
    """Display name; None when a lone conversation's agent is not known."""
    is_leader: bool
    is_sub: bool
    strict: bool


# Not frozen: a frozen dataclass sets each field through object.__setattr__, which costs on
# the per-message path; checks only read facts.
@dataclass(slots=True)
class UserText:
    """The text of a user message that does not present itself as an envelope."""

    index: int
    text: str
    tail: ClassVar[str] = "/content"


@dataclass(slots=True)
class AssistantText:
    """The natural output of an assistant message: its content, when a non-empty string."""

    index: int
    text: str
    has_calls: bool
    """Whether the message also calls tools."""
    tail: ClassVar[str] = "/content"


@dataclass(slots=True)
class ToolText:
    """The text of a tool result that does not present itself as an envelope."""

    index: int
    text: str
    tool: str | None
    """The tool whose result it is; None when it answers no call."""
    tail: ClassVar[str] = "/content"


@dataclass(slots=True)
class EnvelopeText:
    """A well-formed envelope, wherever it appears (a user message, a tool result)."""

    index: int
    text: str
    content: str
    """The envelope's content (between the inner tags)."""
    tail: ClassVar[str] = "/content"


@dataclass(slots=True)
class Delivered:
    """A well-formed envelope delivered as a user message (its envelope checks made)."""

    index: int
    text: str
    sender: str
    mtype: MessageType | None
    """Its type; None for an unknown label."""
    owner: Owner
    tasks: int
    """Tasks delivered into this conversation before this message."""
    protocol_seen: bool
    """Whether a protocol message came before this one in this conversation."""
    content: str
    """The envelope's content."""
    withdrawable: list[tuple[str, str, Callable[[], None]]] | None
    """Where a check puts (sender, content, report) of a finding the checks across
    conversations make only if the sender did not say that content itself (in a bundle);
    None: report at once."""
    tail: ClassVar[str] = "/content"


@dataclass(slots=True)
class Returned:
    """A well-formed envelope returned as a tool result (its envelope checks made)."""

    index: int
    text: str
    sender: str
    mtype: MessageType | None
    """Its type; None for an unknown label."""
    tag: str
    tool: str | None
    """The tool whose result it is; None when it answers no call."""
    owner: Owner
    tail: ClassVar[str] = "/content"


@dataclass(slots=True)
class Malformed:
    """A message, or a part of one, that is not what a chat-completions message holds."""

    index: int
    tail: str
    """The pointer of the part below the message ("" for the message itself)."""
    problem: str
    """What is wrong with it, in words."""
    text: ClassVar[str | None] = None


@dataclass(slots=True)
class NotText:
    """A message content that is not a string (nor null where null is allowed)."""

    index: int
    what: str
    """Which message holds it ("a user message", ...)."""
    content: Any
    text: ClassVar[str | None] = None
    tail: ClassVar[str] = "/content"


@dataclass(slots=True)
class Unparsed:
    """A text that presents itself as an envelope (its first line is a header) but does not
    parse; a finding about it is placed where the parser stopped."""

    index: int
    text: str
    code: str
    """What the parser found wrong (``envelope.ParseError.code``)."""
    message: str
    tail: ClassVar[str] = "/content"


@dataclass(slots=True)
class EnvelopeHead:
    """The label and tag of a well-formed envelope whose (label, tag, sender) this
    conversation has not found fine before."""

    index: int
    text: str
    sender: str
    label: str
    tag: str
    known: tuple[MessageType, str, str] | None
    """(type, its tag, its id prefix) of the label in the profile; None for a label the
    profile does not define."""
    tail: ClassVar[str] = "/content"


@dataclass(slots=True)
class DisplayName:
    """A display name an envelope or a bundle entry gives, not found fine before."""

    index: int | None
    text: str | None
    """The text it is written in (for its place); None for a bundle entry's key."""
    name: str
    at: int | None
    """Its offset in ``text``."""
    tail: ClassVar[str] = "/content"


@dataclass(slots=True)
class EnvelopeAttributes:
    """The inner tag's attributes of a well-formed envelope, and the receiver its header
    names (astrion), wherever it appears."""

    index: int
    text: str
    sender: str
    receiver: str | None
    """The receiver the header names (astrion); None when it names none."""
    tag: str
    mtype: MessageType | None
    attributes: tuple[tuple[str, str], ...]
    owner: Owner
    tail: ClassVar[str] = "/content"


@dataclass(slots=True)
class EnvelopeId:
    """The id line of a well-formed envelope whose id the head's quick test did not pass."""

    index: int
    text: str
    sender: str
    message_id: str
    label: str
    tag: str
    mtype: MessageType | None
    """Its type; None for an unknown label."""
    wanted: str | None
    """The id prefix its label's type takes; None for an unknown label."""
    chosen: bool
    """Whether the id is one an agent chose (an Ask, a sub-agent's Message)."""
    match: re.Match[str] | None
    """The id against the strict id shape (``envelope.ids.STRICT_ID``)."""
    strict: bool
    abbreviation: str | None
    """The abbreviation the sender's role takes in ids; None when it cannot be told."""
    tail: ClassVar[str] = "/content"


@dataclass(slots=True)
class IdRepeated:
    """A delivered envelope (or returned Answer) whose id an earlier one in this conversation
    carried."""

    index: int
    text: str
    message_id: str
    first: int
    """Index of the message that carried the id first."""
    same: bool
    """Whether that message was this one (same sender, label, tag and content)."""
    tail: ClassVar[str] = "/content"


Fact = (UserText | AssistantText | ToolText | EnvelopeText | Delivered | Returned | Malformed
        | NotText | Unparsed | EnvelopeHead | DisplayName | EnvelopeAttributes | EnvelopeId
        | IdRepeated)
"""Every kind of fact a check can take."""

FACT_TYPES: tuple[type[Fact], ...] = (UserText, AssistantText, ToolText, EnvelopeText, Delivered,
                                      Returned, Malformed, NotText, Unparsed, EnvelopeHead,
                                      DisplayName,
                                      EnvelopeAttributes, EnvelopeId, IdRepeated)
