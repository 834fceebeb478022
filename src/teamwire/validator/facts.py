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
from teamwire.schemas.arguments import ArgumentProblem
from teamwire.validator.model import Answer
from teamwire.validator.tooling import ToolCatalog, Verdict


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


@dataclass(slots=True)
class ToolCall:
    """A well-formed entry of an assistant message's tool_calls that some check may look
    into: a call of a protocol tool, of a tool the catalog gives a verdict on for this
    agent, or one reusing a call id of this conversation (every call, when an enabled check
    of calls has no trigger)."""

    index: int
    position: int
    """Its place in the message's tool_calls."""
    call_id: str
    tool: str
    verdict: Verdict | None
    """Why this agent may not call the tool, by the catalog; None when it may."""
    repeated: bool
    """Whether an earlier call of this conversation has the same id."""
    protocol: bool
    """Whether the tool is a protocol tool of the profile."""
    text: str | None
    """The arguments text (what offsets refer to); None when the arguments are no string."""
    raw: Any
    """The arguments as the message gives them."""
    arguments: dict[str, Any] | None
    """The arguments object as read (protocol tools only); None when it cannot be read."""
    problem: ArgumentProblem | None
    """What stopped or marred reading them (``schemas.arguments.read_arguments``)."""
    catalog: ToolCatalog
    owner: Owner
    has_text: bool
    """Whether the message also says something (non-blank text)."""
    tail: str
    """The call's pointer below the message (``/tool_calls/N``)."""


@dataclass(slots=True)
class ToolResult:
    """The JSON result of a protocol tool call (not an envelope, not a text the profile
    writes its results as)."""

    index: int
    tool: str
    value: Any
    """The decoded result; None when it is not JSON."""
    strict: bool
    text: ClassVar[str | None] = None
    tail: ClassVar[str] = "/content"


@dataclass(slots=True)
class MissingResult:
    """A tool call that got no result before the next message (its index is the call's)."""

    index: int
    call_id: str
    tool: str
    at: int
    """The message before which the result was due (or, when ``late``, came)."""
    late: bool
    """The result came after all, after a later message (a call an astrion stop was taken
    to end)."""
    text: ClassVar[str | None] = None
    tail: ClassVar[str] = ""


@dataclass(slots=True)
class StrayResult:
    """A tool result that answers no open call."""

    index: int
    call_id: str
    answered: bool
    """Whether a call of this conversation had that id (its result came before)."""
    text: ClassVar[str | None] = None
    tail: ClassVar[str] = "/tool_call_id"


@dataclass(slots=True)
class AgentCreated:
    """An accepted create_sub_agent call (or one still without a result)."""

    index: int
    tail: str
    role_id: str
    agent_id: int
    first: int | None
    """The message of an earlier such call for the same (role_id, agent_id); None if none."""
    text: ClassVar[str | None] = None


@dataclass(slots=True)
class RoleDefined:
    """An accepted create_custom_agent call whose role id or name the catalog had already."""

    index: int
    tail: str
    kind: str
    """Which of them: "role id" or "name"."""
    value: str
    first: int | None
    """The message of the create_custom_agent call that defined it; None for the role of a
    sub-agent created or known before."""
    strict: bool
    text: ClassVar[str | None] = None


@dataclass(slots=True)
class CallTarget:
    """A sub-agent an accepted call targets, as the conversation (or the bundle) knows it."""

    index: int
    tail: str
    tool: str
    named: str
    """How the call names it: repr of a display name, ``role #N`` or ``agent_id N``."""
    agent_id: int | None
    roles: tuple[str, ...]
    """The roles of the known sub-agents that fit (none: it does not exist)."""
    terminated: bool
    """Whether the one that fits was terminated before."""
    terminated_ok: bool
    """Whether the tool may target a terminated sub-agent (get_sub_agent_status)."""
    caller: bool
    """Whether the call targets its own caller (then nothing else about it is told)."""
    text: ClassVar[str | None] = None


@dataclass(slots=True)
class PeerAsk:
    """An accepted ask_other_agent, counted per target agent of the asking sub-agent."""

    index: int
    tail: str
    agent_id: int
    count: int
    """Asks to that agent so far, this one included."""
    limit: int
    """The round limit of the options."""
    text: ClassVar[str | None] = None


@dataclass(slots=True)
class AskAnswered:
    """The successful result of an ask tool call (its index is the result's)."""

    index: int
    tool: str
    answer: Answer | None
    """The Answer the result holds; None when it is no Answer envelope. An answer astrion
    writes as text (``text_form``) has the call's answerer and question filled in."""
    expected: Any
    """The id the call chose for its question (None when the result is no Answer)."""
    answerer: str | None
    """Who must answer; None when it cannot be told (or the result is no Answer)."""
    text: ClassVar[str | None] = None
    tail: ClassVar[str] = "/content"


Fact = (UserText | AssistantText | ToolText | EnvelopeText | Delivered | Returned | Malformed
        | NotText | Unparsed | EnvelopeHead | DisplayName | EnvelopeAttributes | EnvelopeId
        | IdRepeated | ToolCall | ToolResult | MissingResult | StrayResult | AgentCreated
        | RoleDefined | CallTarget | PeerAsk | AskAnswered)
"""Every kind of fact a check can take."""

FACT_TYPES: tuple[type[Fact], ...] = (UserText, AssistantText, ToolText, EnvelopeText, Delivered,
                                      Returned, Malformed, NotText, Unparsed, EnvelopeHead,
                                      DisplayName,
                                      EnvelopeAttributes, EnvelopeId, IdRepeated, ToolCall,
                                      ToolResult, MissingResult, StrayResult, AgentCreated,
                                      RoleDefined, CallTarget, PeerAsk, AskAnswered)
