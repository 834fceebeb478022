"""The data the router keeps and persists: messages, open asks, agent records, the results
of tool calls, snapshots."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field

from teamwire.envelope import LEADER_NAME, Envelope, MessageType, render
from teamwire.router.states import AgentState
from teamwire.spec_version import SPEC_VERSION

PROTOCOL_VERSION = SPEC_VERSION
"""The ``version`` member of the structured messages the router writes (TW-VER-001)."""


@dataclass(slots=True, unsafe_hash=True)
class RoutedMessage:
    """One protocol message on its way from sender to receiver: the structured form.

    ``text`` renders the envelope with the envelope library the first time it
    is read. ``seq`` orders the messages of one session. ``correlation_id`` is
    the id of the TASK the message belongs to and ``round`` its round number
    (TW-MSG-008, TW-MSG-009); ``call_id`` is the tool call that produced it,
    None for natural output (TW-DUR-003). Treat instances as immutable.
    """

    id: str
    kind: MessageType
    sender: str
    receiver: str
    content: str
    seq: int
    question_id: str | None = None
    """Set on answers: the id of the ask they answer (the ``question_id`` attribute)."""
    correlation_id: str = ""
    round: int = 0
    call_id: str | None = None
    _text: str | None = field(default=None, init=False, repr=False, compare=False, hash=False)

    @property
    def envelope(self) -> Envelope:
        """The envelope this message is written as."""
        attributes = (("question_id", self.question_id),) if self.question_id else ()
        return Envelope(self.sender, self.kind.label, self.id, self.kind.tag, self.content,
                        attributes)

    @property
    def text(self) -> str:
        """The canonical envelope text (rendered once, on first use)."""
        text = self._text
        if text is None:
            text = self._text = render(self.envelope)
        return text


class AskKind(str, enum.Enum):
    """Which ask tool an open ask came from (derived from who asks whom)."""

    ASK_MASTER = "ask_master"
    ASK_OTHER_AGENT = "ask_other_agent"
    ASK_SUB_AGENT = "ask_sub_agent"


@dataclass(frozen=True)
class OpenAsk:
    """An ask tool call that blocks its caller until it is answered, times out or fails."""

    call_id: str
    target: str
    question_id: str
    kind: AskKind
    timeout: float | None = None
    delivered: bool = False
    """True once the question has reached the target's conversation."""
    correlation_id: str = ""
    """The correlation id of the asked message; its answer gets the same (TW-MSG-008)."""
    round: int = 1
    """The round of the asked message; its answer gets the same (TW-MSG-009)."""
    deadline: float | None = None
    """Host time at which the ask times out, when the host told the core its time."""

    @property
    def answered_by_output(self) -> bool:
        """True if the target's next natural output answers it.

        That holds for the leader's ask_sub_agent and for a sub-agent's
        notification (ask_other_agent whose message_id starts with ``msg_``).
        """
        return self.kind is AskKind.ASK_SUB_AGENT or (
            self.kind is AskKind.ASK_OTHER_AGENT and self.question_id.startswith("msg_"))


@dataclass(frozen=True)
class AgentRecord:
    """What the router knows about one agent, as persisted by a store."""

    name: str
    role_id: str
    state: AgentState = AgentState.IDLE
    ask: OpenAsk | None = None
    rounds: tuple[tuple[str, str, int], ...] = ()
    """(target, correlation_id, count): messages of ask tool calls posed to each target for
    that correlation id, the basis of round numbers and the round limit."""
    turns: int = 0
    task_id: str | None = None
    """The id of the sub-agent's TASK: the correlation id of what it sends."""

    @property
    def is_leader(self) -> bool:
        """True for the Team Leader."""
        return self.name == LEADER_NAME


@dataclass(slots=True, unsafe_hash=True)
class ResolveToolCall:
    """Return ``message`` (an Answer) as the result of the blocked ask ``call_id`` of ``agent``."""

    agent: str
    call_id: str
    message: RoutedMessage

    @property
    def text(self) -> str:
        """The Answer envelope text, the tool result."""
        return self.message.text


@dataclass(slots=True, unsafe_hash=True)
class FailToolCall:
    """Give tool call ``call_id`` of ``agent`` the common error result."""

    agent: str
    call_id: str | None
    code: str
    message: str
    candidates: tuple[tuple[int, str, str], ...] = ()


@dataclass(slots=True, unsafe_hash=True)
class AcknowledgeSend:
    """The message ``message_id`` sent by tool call ``call_id`` of ``agent`` is accepted.

    ``delivery`` says how it reaches its receiver; ``duplicate`` is true when
    the id was already used and the send was dropped as a repeat (``delivery``
    is then the first acknowledgment's, when known). A tool call executed a
    second time gets its first acknowledgment again, unchanged (TW-DUR-003).
    """

    agent: str
    call_id: str | None
    message_id: str
    receiver: str
    delivery: str | None
    duplicate: bool = False


ToolCallResult = AcknowledgeSend | ResolveToolCall | FailToolCall
"""The result of a tool call as the core reports it."""


@dataclass(frozen=True)
class Snapshot:
    """Everything a restarted router needs: agents, undelivered messages, used ids.

    ``results`` holds the stored result of every tool call that produced a
    message (its acknowledgment, or the outcome of an ask that is no longer
    pending), so that the call can be recognised when it is executed again.
    """

    agents: tuple[AgentRecord, ...] = ()
    pending: tuple[RoutedMessage, ...] = ()
    ids: frozenset[str] = field(default_factory=frozenset)
    next_seq: int = 1
    results: tuple[ToolCallResult, ...] = ()
    questions: tuple[tuple[str, str, str, bool], ...] = ()
    """(question id, asker, answerer, received) of every accepted ask, so that an answer to
    one that is over still fails with not-waiting rather than unknown-question; in the order
    the asks were accepted, which for one answerer is the order its questions reached it, the
    order in which one output answers several of them (TW-ROUTE-014)."""
