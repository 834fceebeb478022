"""The facts handed to rule checks: one per thing a message says (the conversation pass),
about the input itself (``engine``), or across the conversations of a bundle
(``cross_conversation``).

A fact holds what its checks need and where a finding about it points: the message's
index and the pointer tail of the text (``text``) that offsets refer to; a fact about the
input carries its whole ``Place`` instead.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from itertools import islice
from typing import Any, ClassVar, NamedTuple

from teamwire.envelope import MessageType
from teamwire.schemas.arguments import ArgumentProblem
from teamwire.validator.model import Answer, Call, DeliveredEnvelope, Output
from teamwire.validator.tooling import ToolCatalog, Verdict


class Owner(NamedTuple):
    """Whose conversation a fact is in, and under which profile (a tuple: cheap to make and
    to hash, as the memo's keys need)."""

    name: str | None
    """Display name; None when a lone conversation's agent is not known."""
    is_leader: bool
    is_sub: bool
    strict: bool


def call_pointer(position: int) -> str:
    """The pointer of the tool call at ``position`` below its message."""
    return f"/tool_calls/{position}"


# Not frozen: a frozen dataclass sets each field through object.__setattr__, which costs on
# the per-message path; checks only read facts. No __eq__ (eq=False): a fact is one event,
# the same only as itself, and fifty generated comparisons cost every run at import. The
# bases below hold the fields (and the pointer tail) that kinds of facts share; a check
# takes the concrete type.
@dataclass(slots=True, eq=False)
class _InText:
    """A fact about the text of message ``index``, which offsets refer to."""

    index: int
    text: str
    tail: ClassVar[str] = "/content"


@dataclass(slots=True, eq=False)
class _FromSender(_InText):
    """A fact about a well-formed envelope of ``sender``."""

    sender: str


@dataclass(slots=True, eq=False)
class _AtContent:
    """A fact about the content of message ``index``, with no text for offsets."""

    index: int
    text: ClassVar[str | None] = None
    tail: ClassVar[str] = "/content"


@dataclass(slots=True, eq=False)
class _AtPart:
    """A fact about a part of message ``index`` that ``tail`` points at (a tool call's
    ``/tool_calls/N``, say), with no text for offsets."""

    index: int
    tail: str
    text: ClassVar[str | None] = None


@dataclass(slots=True, eq=False)
class UserText(_InText):
    """The text of a user message that does not present itself as an envelope."""


@dataclass(slots=True, eq=False)
class AssistantText(_InText):
    """The natural output of an assistant message: its content, when a non-empty string."""

    has_calls: bool
    """Whether the message also calls tools."""


@dataclass(slots=True, eq=False)
class ToolText(_InText):
    """The text of a tool result that does not present itself as an envelope."""

    tool: str | None
    """The tool whose result it is; None when it answers no call."""


@dataclass(slots=True, eq=False)
class EnvelopeText(_InText):
    """A well-formed envelope, wherever it appears (a user message, a tool result)."""

    content: str
    """The envelope's content (between the inner tags)."""


@dataclass(slots=True, eq=False)
class Delivered(_FromSender):
    """A well-formed envelope delivered as a user message (its envelope checks made)."""

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


@dataclass(slots=True, eq=False)
class Returned(_FromSender):
    """A well-formed envelope returned as a tool result (its envelope checks made)."""

    mtype: MessageType | None
    """Its type; None for an unknown label."""
    tag: str
    tool: str | None
    """The tool whose result it is; None when it answers no call."""
    owner: Owner


@dataclass(slots=True, eq=False)
class Malformed(_AtPart):
    """A message, or a part of one (``tail``; "" for the message itself), that is not what a
    chat-completions message holds."""

    problem: str
    """What is wrong with it, in words."""


@dataclass(slots=True, eq=False)
class NotText(_AtContent):
    """A message content that is not a string (nor null where null is allowed)."""

    what: str
    """Which message holds it ("a user message", ...)."""
    content: Any


@dataclass(slots=True, eq=False)
class Unparsed(_InText):
    """A text that presents itself as an envelope (its first line is a header) but does not
    parse; a finding about it is placed where the parser stopped."""

    code: str
    """What the parser found wrong (``envelope.ParseError.code``)."""
    message: str


@dataclass(slots=True, eq=False)
class EnvelopeHead(_FromSender):
    """The label and tag of a well-formed envelope whose (label, tag, sender) this
    conversation has not found fine before."""

    label: str
    tag: str
    known: tuple[MessageType, str, str] | None
    """(type, its tag, its id prefix) of the label in the profile; None for a label the
    profile does not define."""


@dataclass(slots=True, eq=False)
class DisplayName:
    """A display name an envelope or a bundle entry gives, not found fine before."""

    index: int | None
    text: str | None
    """The text it is written in (for its place); None for a bundle entry's key."""
    name: str
    at: int | None
    """Its offset in ``text``."""
    tail: ClassVar[str] = "/content"


@dataclass(slots=True, eq=False)
class EnvelopeAttributes(_FromSender):
    """The inner tag's attributes of a well-formed envelope, and the receiver and label its
    header names, wherever it appears."""

    receiver: str | None
    """The receiver the header names (astrion); None when it names none."""
    label: str
    tag: str
    mtype: MessageType | None
    attributes: tuple[tuple[str, str], ...]
    owner: Owner


@dataclass(slots=True, eq=False)
class EnvelopeId(_FromSender):
    """The id line of a well-formed envelope whose id the head's quick test did not pass."""

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


@dataclass(slots=True, eq=False)
class IdRepeated(_InText):
    """A delivered envelope (or returned Answer) whose id an earlier one in this conversation
    carried."""

    message_id: str
    first: int
    """Index of the message that carried the id first."""
    same: bool
    """Whether that message was this one (same sender, label, tag and content)."""


@dataclass(slots=True, eq=False)
class ToolCall(Call):
    """A well-formed entry of an assistant message's tool_calls that some check may look
    into: a call of a protocol tool, of a tool the catalog gives a verdict on for this
    agent, or one reusing a call id of this conversation (every call, when an enabled check
    of calls has no trigger).

    It is a ``model.Call``: a call of a protocol tool is this one object from its message to
    the checks across conversations, its result filled in when it comes (the checks of
    calls run before that). Its tool is ``name`` (``tool`` reads it), and whether its message
    also says something is ``text_in_turn`` (``has_text``)."""

    verdict: Verdict | None
    """Why this agent may not call the tool, by the catalog; None when it may."""
    repeated: bool
    """Whether an earlier call of this conversation has the same id."""
    protocol: bool
    """Whether the tool is a protocol tool of the profile."""
    raw: Any
    """The arguments as the message gives them."""
    problem: ArgumentProblem | None
    """What stopped or marred reading them (``schemas.arguments.read_arguments``)."""
    catalog: ToolCatalog
    owner: Owner

    @property
    def tool(self) -> str:
        """The tool called."""
        return self.name

    @property
    def has_text(self) -> bool:
        """Whether the message also says something (non-blank text)."""
        return self.text_in_turn

    # Told from the fields when a finding needs them: most calls are handed out and found
    # fine, and these would be made for each of them.
    @property
    def text(self) -> str | None:
        """The arguments text (what offsets refer to); None when the arguments are no
        string."""
        raw = self.raw
        return raw if type(raw) is str else None

    @property
    def tail(self) -> str:
        """The call's pointer below the message (``/tool_calls/N``)."""
        return call_pointer(self.position)


@dataclass(slots=True, eq=False)
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


@dataclass(slots=True, eq=False)
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


@dataclass(slots=True, eq=False)
class StrayResult:
    """A tool result that answers no open call."""

    index: int
    call_id: str
    answered: bool
    """Whether a call of this conversation had that id (its result came before)."""
    text: ClassVar[str | None] = None
    tail: ClassVar[str] = "/tool_call_id"


@dataclass(slots=True, eq=False)
class AgentCreated(_AtPart):
    """An accepted create_sub_agent call (or one still without a result)."""

    role_id: str
    agent_id: int
    first: int | None
    """The message of an earlier such call for the same (role_id, agent_id); None if none."""


@dataclass(slots=True, eq=False)
class RoleDefined(_AtPart):
    """An accepted create_custom_agent call whose role id or name the catalog had already."""

    kind: str
    """Which of them: "role id" or "name"."""
    value: str
    first: int | None
    """The message of the create_custom_agent call that defined it; None for the role of a
    sub-agent created or known before."""
    strict: bool


@dataclass(slots=True, eq=False)
class CallTarget:
    """A sub-agent an accepted call targets, as the conversation (or the bundle) knows it."""

    index: int
    position: int
    """The call's place in its message's tool_calls."""
    tool: str
    role_id: str | None
    """The role id the call names; None when it names none."""
    shown: str | None
    """The display name the call names it by (astrion); None when it names none."""
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

    @property
    def named(self) -> str:
        """How the call names it: repr of a display name, ``role #N`` or ``agent_id N``
        (told when a finding needs it)."""
        if self.shown is not None:
            return repr(self.shown)
        if self.role_id is not None:
            return f"{self.role_id} #{self.agent_id}"
        return f"agent_id {self.agent_id}"

    @property
    def tail(self) -> str:
        """The call's pointer below the message (``/tool_calls/N``)."""
        return call_pointer(self.position)


@dataclass(slots=True, eq=False)
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


@dataclass(slots=True, eq=False)
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


# -- the input itself (engine) -----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Place:
    """Where a finding about the input itself goes, as the engine found it."""

    agent: str | None = None
    index: int | None = None
    pointer: str | None = None
    """None: the finding names no place in the JSON; else ``below`` extends it."""
    line: int | None = None
    column: int | None = None
    snippet: str | None = None
    file_line: int | None = None
    file_column: int | None = None


@dataclass(slots=True, eq=False)
class _AboutInput:
    """A fact about the input itself; its findings go to ``place``."""

    place: Place
    index: ClassVar[int | None] = None
    text: ClassVar[str | None] = None
    tail: ClassVar[str] = ""


@dataclass(slots=True, eq=False)
class NotJson(_AboutInput):
    """An input, or a JSONL record, that does not decode."""

    empty: bool
    """Nothing but white space."""
    byte: int | None
    """The first byte that is not UTF-8; None when the text is UTF-8."""
    offset: int
    """The offset of that byte."""
    reason: str | None
    """What the UTF-8 or the JSON decoder said; None when neither said anything."""


@dataclass(slots=True, eq=False)
class TopLevel(_AboutInput):
    """An input's top-level value that is neither a session bundle nor a conversation, or
    the first record of JSON Lines that are a router event log."""

    value: Any
    event_log: bool


@dataclass(slots=True, eq=False)
class BundleHead(_AboutInput):
    """A session bundle's top-level object (its ``teamwire`` and ``agents`` members)."""

    bundle: dict[str, Any]


@dataclass(slots=True, eq=False)
class BundleEntry(_AboutInput):
    """One entry of a bundle's ``agents``, by its display name."""

    name: str
    entry: Any
    number: int | None
    """The number the display name ends with (``_N``); None when it ends with none."""


@dataclass(slots=True, eq=False)
class LongRecord(_AboutInput):
    """A JSONL line longer than the configured limit, skipped unread."""

    limit: int


@dataclass(slots=True, eq=False)
class LoneConversation(_AboutInput):
    """A conversation linted on its own, with the owner inferred (or given) for it."""

    known: bool
    """Whether its owner is known (given, or inferred as the leader or a sub-agent)."""
    messages: int


@dataclass(slots=True, eq=False)
class Unreadable(_AboutInput):
    """An input that cannot be read, and why."""

    reason: str


@dataclass(slots=True, eq=False)
class RepeatedMember(_AboutInput):
    """An object of the input's JSON that names one member more than once (its place: the
    object's pointer, the file position of the first repeat)."""

    name: str
    repeats: int
    """Times the name comes again after its first."""


# -- across the conversations of a bundle (cross_conversation) ---------------------------------
# A finding about one of these goes to the message ``index`` (``tail`` below it) of the
# conversation the checker hands the fact out for.


@dataclass(slots=True, eq=False)
class IdShared(_AtContent):
    """A delivery whose envelope id a delivery in another conversation carried first."""

    message_id: str
    owner: str | None
    """Whose conversation has the id first."""
    first: int
    """The index of that delivery."""
    same: bool
    """Whether it is the same message (sender, label, tag and content)."""


@dataclass(slots=True, eq=False)
class _OfCall:
    """A fact about a call of a conversation of the bundle: a finding about it points at the
    call, whose place and tool are read only when one is made."""

    call: Call

    @property
    def index(self) -> int:
        """The index of the message that makes the call."""
        return self.call.index

    @property
    def tail(self) -> str:
        """The call's pointer below its message."""
        return call_pointer(self.call.position)

    @property
    def tool(self) -> str:
        """The tool called."""
        return self.call.name


@dataclass(slots=True, eq=False)
class SendOutcome(_OfCall):
    """What became of a call that sends a message to another agent of the bundle: the
    checker makes it when it expects the call's message somewhere, and fills it in as it
    matches the message with its delivery."""

    sender: str
    target: str
    types: tuple[MessageType, ...]
    """The types the delivery may have."""
    message_id: str | None
    """The id the call chose; None when it chooses none."""
    content: str | None
    """The content the call gives the message; None when it gives none that is a string."""
    delivery: DeliveredEnvelope | None = None
    """Where it arrived; None: nowhere."""
    id_differs: bool = False
    """It arrived with other than the chosen id (found by its content)."""
    content_differs: bool = False
    """It arrived, found by its id, with other than the call's content."""
    overtaken: bool = False
    """A later send of the same sender to the same target arrived."""
    answered: bool = False
    """The call's result holds an Answer."""
    discarded: bool = False
    """It may have been discarded with its target's queue (TW-ROUTE-020): the Team Leader
    terminated the target after it, and nothing it could have become arrived unmatched
    (told only of a send neither delivered, overtaken nor answered; else False)."""
    latest: int = -1
    """The latest delivery of the sends made before it on its channel (-1: none)."""
    text: ClassVar[str | None] = None

    @property
    def sent(self) -> bool | None:
        """Whether the call's message was enqueued (``model.Call.sent``)."""
        return self.call.sent


@dataclass(slots=True, eq=False)
class MissingConversation(_AtPart):
    """A create_sub_agent call naming a sub-agent the bundle has no conversation for."""

    role_id: str
    agent_id: int


@dataclass(slots=True, eq=False)
class UnmatchedDelivery(_AtContent):
    """A delivery from an agent of the bundle that no send of that agent accounts for."""

    delivery: DeliveredEnvelope
    strict: bool


@dataclass(slots=True, eq=False)
class AnswerGiven(_OfCall):
    """An answer call that succeeded (or may have), and what the bundle shows of its
    question."""

    question_id: str
    answerer: str
    asker: str | None
    """Who asked it; None when no such question reached the answerer."""
    asked: bool
    """Whether the asker asked it of the answerer before this call."""
    again: bool
    """Whether an earlier answer call answered it."""
    returned: bool | None
    """Whether the answer came back as the result of the asker's ask; None when that cannot
    be told (no ask matched, the asker was terminated, or a late answer took its place)."""
    ask: SendOutcome | None
    """The asker's ask, when one matched."""
    text: ClassVar[str | None] = None

    @property
    def ask_tool(self) -> str | None:
        """The asker's ask tool, when one matched."""
        return None if self.ask is None else self.ask.call.name


@dataclass(slots=True, eq=False)
class _Reported(_AtContent):
    """An Output delivered to the Team Leader (its index is there): ``model.Output`` and its
    sender."""

    output_id: str
    mtype: MessageType
    content: str
    sender: str


@dataclass(slots=True, eq=False)
class OutputPaired(_Reported):
    """An Output paired with the natural output of its sender it reports."""

    has_calls: bool
    """Whether that natural output came with tool calls."""
    latest: int
    """The latest Output of the sender paired before, said earlier (-1: none)."""


@dataclass(slots=True, eq=False)
class PairedOutputs:
    """The Outputs of one sub-agent that reach the Team Leader, each paired with the natural
    output of its sender it reports, in the order they arrive: one fact for all of them, as
    their checks look at every one. A finding about one of them is about its
    ``OutputPaired`` (``paired``).

    Most Outputs arrive in the order they were said: the first ``in_step`` of ``outputs``
    report the first ``in_step`` of ``said`` one for one, and are held as those two lists
    (no pair is made for each); the rest, paired by search, are in ``later``."""

    sender: str
    said: list[tuple[int, str, bool]]
    """The sender's natural outputs: (message index, text, whether it came with tool
    calls)."""
    outputs: list[Output]
    """The Outputs from the sender the leader received, in the order they arrive."""
    in_step: int
    later: list[tuple[Output, bool, int]]
    """(an Output paired after the first ``in_step``, whether its natural output came with
    tool calls, the latest Output of the sender paired before it that was said earlier, -1
    for none)."""
    index: ClassVar[int | None] = None
    text: ClassVar[str | None] = None
    tail: ClassVar[str] = ""

    @property
    def pairs(self) -> list[tuple[Output, bool, int]]:
        """Every paired Output as ``later`` holds them, in the order they arrive."""
        first = [(output, has_calls, -1) for (_at, _text, has_calls), output
                 in islice(zip(self.said, self.outputs, strict=False), self.in_step)]
        return first + self.later

    def paired(self, pair: tuple[Output, bool, int]) -> OutputPaired:
        """The fact of one of ``pairs``, which a finding about it is about."""
        output, has_calls, latest = pair
        return OutputPaired(*output, self.sender, has_calls, latest)


@dataclass(slots=True, eq=False)
class OutputUnsaid(_Reported):
    """An Output that no natural output of its sender accounts for."""

    answered: bool
    """Whether its text was delivered as an Answer instead."""


@dataclass(slots=True, eq=False)
class OutputMissing(_AtContent):
    """A sub-agent's natural output that no Output delivered to the Team Leader reports."""

    sender: str
    said: str
    answered: bool
    """Whether an ask tool returned that text as an Answer of the sender."""


@dataclass(slots=True, eq=False)
class RelayedResult:
    """A completion whose run result a conversation check found wrong, with the finding it
    prepared."""

    said: bool
    """Whether the sender said that text itself (then the router relayed it as it is)."""
    finding: Callable[[], None]
    """Makes the prepared finding."""
    index: ClassVar[int | None] = None
    text: ClassVar[str | None] = None
    tail: ClassVar[str] = ""


Fact = (UserText | AssistantText | ToolText | EnvelopeText | Delivered | Returned | Malformed
        | NotText | Unparsed | EnvelopeHead | DisplayName | EnvelopeAttributes | EnvelopeId
        | IdRepeated | ToolCall | ToolResult | MissingResult | StrayResult | AgentCreated
        | RoleDefined | CallTarget | PeerAsk | AskAnswered | NotJson | TopLevel | BundleHead
        | BundleEntry | LongRecord | LoneConversation | Unreadable | RepeatedMember | IdShared
        | SendOutcome | MissingConversation | UnmatchedDelivery | AnswerGiven | OutputPaired
        | PairedOutputs | OutputUnsaid | OutputMissing | RelayedResult)
"""Every kind of fact a check can take."""

FACT_TYPES: tuple[type[Fact], ...] = (UserText, AssistantText, ToolText, EnvelopeText, Delivered,
                                      Returned, Malformed, NotText, Unparsed, EnvelopeHead,
                                      DisplayName,
                                      EnvelopeAttributes, EnvelopeId, IdRepeated, ToolCall,
                                      ToolResult, MissingResult, StrayResult, AgentCreated,
                                      RoleDefined, CallTarget, PeerAsk, AskAnswered)
"""The facts a conversation pass hands out, message by message (the dispatcher's)."""
