"""The data the router keeps and persists: messages, open asks, agent records, snapshots."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from functools import cached_property

from teamwire.envelope import LEADER_NAME, Envelope, MessageType, render
from teamwire.router.states import AgentState


@dataclass(frozen=True)
class RoutedMessage:
    """One protocol message on its way from sender to receiver.

    The structured form of an envelope; ``text`` renders it with the envelope
    library when it is delivered. ``seq`` orders the messages of one session.
    """

    id: str
    kind: MessageType
    sender: str
    receiver: str
    content: str
    seq: int
    question_id: str | None = None
    """Set on answers: the id of the ask they answer (the ``question_id`` attribute)."""

    @property
    def envelope(self) -> Envelope:
        """The envelope this message is written as."""
        attributes = (("question_id", self.question_id),) if self.question_id else ()
        return Envelope(self.sender, self.kind.label, self.id, self.kind.tag, self.content,
                        attributes)

    @cached_property
    def text(self) -> str:
        """The canonical envelope text (rendered once, on first use)."""
        return render(self.envelope)


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
    rounds: tuple[tuple[str, int], ...] = ()
    """ask_other_agent calls posed per target for the current task (the round limit)."""
    turns: int = 0

    @property
    def is_leader(self) -> bool:
        """True for the Team Leader."""
        return self.name == LEADER_NAME


@dataclass(frozen=True)
class Snapshot:
    """Everything a restarted router needs: agents, undelivered messages, used ids."""

    agents: tuple[AgentRecord, ...] = ()
    pending: tuple[RoutedMessage, ...] = ()
    ids: frozenset[str] = field(default_factory=frozenset)
    next_seq: int = 1
