"""A session as ``teamwire view`` draws it: lanes of messages, the linter's links between
them, turns, and the findings of the same lint run.

Nothing here matches a send with its delivery: the links come from the linter's
cross-conversation checks (``teamwire.validator.Link``), so the picture and ``teamwire lint``
can never disagree about which message went where.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any

import orjson

from teamwire.envelope import LEADER_NAME, MessageType, ParseError, Profile, is_envelope, parse
from teamwire.envelope.errors import position
from teamwire.json_text import value_kind
from teamwire.validator import Finding, Link, Linter, LintOptions, infer_agent
from teamwire.validator.engine import is_event_log, not_transcript
from teamwire.validator.model import AgentKind
from teamwire.validator.tooling import tool_catalog

_BOM = b"\xef\xbb\xbf"


class UnusableInput(Exception):
    """The input is no session bundle or conversation that can be drawn (exit 2)."""


class How(enum.Enum):
    """How a message reached the conversation it is in."""

    NEW_TURN = "new turn"
    """A user message that starts a turn (the agent was idle or done)."""
    INLINE = "inline"
    """A user message delivered during a turn, before the agent's next model call."""
    TOOL_RESULT = "tool result"


@dataclass(frozen=True)
class ToolCall:
    """One tool call of an assistant message, as written."""

    call_id: str
    name: str
    arguments: str


@dataclass(frozen=True)
class Envelope:
    """What a row's envelope says, when its text is a protocol message."""

    mtype: MessageType | None
    sender: str
    id: str
    content: str
    question_id: str | None = None


@dataclass
class Row:
    """One message of one conversation."""

    lane: int
    index: int
    role: str
    text: str
    calls: list[ToolCall] = field(default_factory=list)
    call_id: str | None = None
    """The tool call a tool result answers."""
    envelope: Envelope | None = None
    how: How | None = None
    """For user messages and tool results: how the message arrived."""
    turn: int | None = None
    """Which turn of its lane the message belongs to (0-based); None outside turns."""


@dataclass(frozen=True)
class Turn:
    """A turn of one agent: from the message that starts it to the one that ends it."""

    lane: int
    first: int
    last: int
    ended: bool
    """False when the conversation stops in the middle of the turn."""


@dataclass
class Lane:
    """One agent and its conversation."""

    name: str
    role_id: str | None = None
    rows: list[Row] = field(default_factory=list)


@dataclass
class Session:
    """Everything drawn: the lanes (Team Leader first), the linter's links and findings."""

    name: str
    file: str
    lanes: list[Lane]
    links: list[Link]
    findings: list[Finding]
    turns: list[Turn]
    bundle: bool
    profile: Profile

    def lane_of(self, name: str | None) -> int | None:
        """The position of the lane of agent ``name``."""
        for position_, lane in enumerate(self.lanes):
            if lane.name == name:
                return position_
        return None

    @property
    def messages(self) -> int:
        """How many messages the lanes hold."""
        return sum(len(lane.rows) for lane in self.lanes)


def load_session(data: bytes, name: str, options: LintOptions | None = None) -> Session:
    """Decode a bundle or a lone conversation (JSON or JSON Lines), lint it, and build the
    session to draw. Raises ``UnusableInput`` for anything that is neither."""
    options = options if options is not None else LintOptions()
    data = data.removeprefix(_BOM)
    value, jsonl = _decode(data, name)
    if type(value) is dict and ("agents" in value or "teamwire" in value):
        if type(value.get("agents")) is not dict:
            raise UnusableInput(f"{name}: a session bundle needs 'agents', an object mapping "
                                "display names to conversations")
        entries = [(str(k), v) for k, v in value["agents"].items()]
        entries.sort(key=lambda entry: entry[0] != LEADER_NAME)  # stable: the leader first
        lanes = [Lane(agent, v.get("role_id") if type(v) is dict and type(v.get("role_id"))
                      is str else None) for agent, v in entries]
        conversations = [v.get("messages") if type(v) is dict else None for _, v in entries]
        title = str(value["session"]) if type(value.get("session")) is str else name
        bundle = True
    elif type(value) is list:
        if value and is_event_log(value[0]):
            raise UnusableInput(f"{name}: this is a teamwire event log (records with 'seq' and "
                                "'event'), not a conversation; view the session bundle the "
                                "router wrote (bundle.json in its state directory)")
        reason = not_transcript(value)
        if reason is not None:
            raise UnusableInput(f"{name}: {reason}; expected a session bundle (object with "
                                "'agents') or a conversation (array of messages)")
        owner = infer_agent(value, tool_catalog(options.profile), options.profile)
        unnamed = "sub-agent" if owner.kind is AgentKind.SUB_AGENT else "conversation"
        lanes = [Lane(options.agent or owner.name or unnamed)]
        conversations = [value]
        title, bundle = name, False
    else:
        what = "a single message" if type(value) is dict and "role" in value else \
            "an object with no 'agents'" if type(value) is dict else value_kind(value)
        raise UnusableInput(f"{name}: the top level is {what}; expected a session bundle "
                            "(object with 'agents') or a conversation (array of messages)")
    links: list[Link] = []
    report = Linter(options).lint_bytes(data, name, jsonl=jsonl, links=links)
    turns: list[Turn] = []
    for position_, (lane, messages) in enumerate(zip(lanes, conversations, strict=True)):
        if type(messages) is list:
            lane.rows = [_row(position_, i, m) for i, m in enumerate(messages)]
            turns += _turns(position_, lane.rows)
    return Session(title, name, lanes, links, report.findings, turns, bundle, options.profile)


def _decode(data: bytes, name: str) -> tuple[Any, bool]:
    """The decoded document and whether it is JSON Lines; UnusableInput with a position."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        prefix = data[: exc.start].decode("utf-8", errors="replace")
        line, column = position(prefix, len(prefix))
        raise UnusableInput(f"{name}:{line}:{column}: invalid UTF-8 (byte 0x{data[exc.start]:02x})"
                            ) from None
    if not text.strip():
        raise UnusableInput(f"{name}:1:1: the input is empty")
    jsonl = name.endswith(".jsonl")
    if not jsonl:
        try:
            return orjson.loads(data), False
        except orjson.JSONDecodeError as exc:
            if "after document" not in str(exc) or text.lstrip()[:1] != "{":
                raise UnusableInput(f"{name}:{exc.lineno}:{exc.colno}: invalid JSON: "
                                    f"{exc.msg}") from None
    records = []
    for number, record in enumerate(text.split("\n"), 1):
        if not record.strip():
            continue
        try:
            records.append(orjson.loads(record))
        except orjson.JSONDecodeError as exc:
            raise UnusableInput(f"{name}:{number}:{exc.colno}: invalid JSON Lines record: "
                                f"{exc.msg}") from None
    return records, True



def text_of(content: Any) -> str:
    """A message content as text: strings as they are, text parts joined, else JSON."""
    if type(content) is str:
        return content
    if content is None:
        return ""
    if type(content) is list and all(type(p) is dict for p in content):
        parts = [p.get("text") for p in content]
        if all(type(p) is str for p in parts):
            return "\n".join(p for p in parts if type(p) is str)
    return orjson.dumps(content).decode()


def _row(lane: int, index: int, message: Any) -> Row:
    if type(message) is not dict:
        return Row(lane, index, "?", orjson.dumps(message).decode())
    role = message.get("role")
    row = Row(lane, index, role if type(role) is str else "?", text_of(message.get("content")))
    calls = message.get("tool_calls")
    for call in calls if type(calls) is list else ():
        function = call.get("function") if type(call) is dict else None
        if type(function) is not dict:
            row.calls.append(ToolCall("", "?", orjson.dumps(call).decode()))
            continue
        arguments, call_name, call_id = function.get("arguments"), function.get("name"), call.get("id")
        row.calls.append(ToolCall(
            call_id if type(call_id) is str else "",
            call_name if type(call_name) is str else "?",
            arguments if type(arguments) is str else orjson.dumps(arguments).decode()))
    answered = message.get("tool_call_id")
    row.call_id = answered if type(answered) is str else None
    if row.role in ("user", "tool") and is_envelope(row.text):
        try:
            envelope = parse(row.text)
        except ParseError:
            pass
        else:
            row.envelope = Envelope(envelope.message_type(Profile.ASTRION), envelope.sender,
                                    envelope.id, envelope.content, envelope.question_id)
    return row


def _turns(lane: int, rows: list[Row]) -> list[Turn]:
    """The turns of one conversation, marking each row with its turn and each user message
    or tool result with how it arrived.

    A turn starts with the first message after the agent was idle (a user message, or an
    assistant message at the very start) and ends with an assistant message without tool
    calls. User messages before the turn's first assistant message arrived together to start
    it; a user message after it arrived inline, during the turn.
    """
    turns: list[Turn] = []
    start: int | None = None
    answered = False  # the current turn has an assistant message
    for row in rows:
        if row.role == "system" and start is None:
            continue
        if start is None:
            start, answered = row.index, False
        row.turn = len(turns)
        if row.role == "user":
            row.how = How.INLINE if answered else How.NEW_TURN
        elif row.role == "tool":
            row.how = How.TOOL_RESULT
        elif row.role == "assistant":
            answered = True
            if not row.calls:
                turns.append(Turn(lane, start, row.index, True))
                start = None
    if start is not None:
        turns.append(Turn(lane, start, rows[-1].index, False))
    return turns
