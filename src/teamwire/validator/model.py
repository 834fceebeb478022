"""The transcript model: agents, what each conversation delivered and sent.

A conversation is linted in one pass over its messages (plain dicts as decoded);
the pass records, for bundles, the facts the cross-conversation checks need.
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from teamwire.envelope import LEADER_NAME, MessageType


class AgentKind(enum.Enum):
    """What kind of agent a conversation belongs to."""

    LEADER = "leader"
    SUB_AGENT = "sub_agent"
    UNKNOWN = "unknown"


@dataclass(frozen=True)
class Agent:
    """One agent of a session, as its bundle entry (or the command line) names it."""

    name: str | None
    """Display name; None when a lone conversation's agent is not known."""
    kind: AgentKind
    role_id: str | None = None
    agent_id: int | None = None

    @property
    def key(self) -> tuple[str | None, int | None]:
        """(role_id, agent_id): what targeting tool calls name."""
        return (self.role_id, self.agent_id)


LEADER = Agent(LEADER_NAME, AgentKind.LEADER, "team-leader", None)


@dataclass(slots=True)
class DeliveredEnvelope:
    """An envelope delivered as a user message."""

    index: int
    id: str
    sender: str
    mtype: MessageType
    content: str
    consumed: bool = False
    """Set when a send in the sender's conversation is matched to it."""
    question_id: str | None = None
    """The question an Answer answers (Answers reach a user message only under astrion)."""


@dataclass(frozen=True, slots=True)
class Link:
    """One send matched to its delivery by the cross-conversation checks of a bundle.

    The send is a protocol tool call (``call`` is its position in the message's
    tool_calls) or, for an Output or an Answer given as natural output, an assistant
    text (``call`` is None). The delivery is a user message, or the tool result of the
    asker's call for an Answer (``tool_result``).
    """

    sender: str
    sent_at: int
    """Index of the sending message in the sender's conversation."""
    call: int | None
    receiver: str
    delivered_at: int
    """Index of the delivering message in the receiver's conversation."""
    mtype: MessageType
    tool_result: bool = False


Output = tuple[int, str, MessageType, str]
"""An Output delivered as a user message: (index, id, type, content); only ever read."""


@dataclass(slots=True)
class Answer:
    """What the checks need of an Answer envelope an ask tool returned."""

    sender: str
    question_id: str | None
    content: str
    text_form: bool = False
    """The answer came as astrion's result text (TW-PROF-028), which names neither sender nor
    question: both are the ask call's, ``question_id`` None when the call chose no id."""


UNTOLD = "untold"
"""The error code of an error result written as text that names none (astrion's,
TW-PROF-028): whether the call's message went out is not known."""


@dataclass(slots=True)
class Result:
    """The tool result of one call."""

    index: int
    rejected: bool
    """True for the common error result (``"success": false``)."""
    answer: Answer | None = None
    """The Answer envelope an ask tool returned, if the result is one."""
    error_code: str | None = None
    malformed: bool = False
    """The result looked like an envelope but did not parse (already reported)."""
    display_name: str | None = None
    """The display name a successful create_sub_agent result gives the new sub-agent."""


@dataclass(slots=True)
class Call:
    """One protocol tool call and, once seen, its result."""

    index: int
    call_id: str
    position: int
    """Position of the call in its message's tool_calls (for pointers)."""
    name: str
    arguments: dict[str, Any] | None
    """The decoded arguments object; None if they did not decode to an object."""
    result: Result | None
    text_in_turn: bool
    """Whether the agent said something (non-blank text) in the turn of this call."""
    maybe_unrun: bool
    """The call has no result and its agent was terminated: it may never have run."""

    @property
    def accepted(self) -> bool:
        """The call was not answered with an error result (it succeeded or is pending)."""
        return self.result is None or not self.result.rejected

    @property
    def sent(self) -> bool | None:
        """Whether the call's message was enqueued: True, False, or None when unknowable.

        An ask that ended in ``timeout`` or ``unanswered`` (TW-ROUTE-030) was accepted first,
        so its message went out; one
        that ended in ``agent-terminated`` may have been refused or cut short, and one that
        may never have run may or may not have sent it.
        """
        if self.maybe_unrun:
            return None
        result = self.result
        if result is None or not result.rejected:  # accepted (as the property says, inline)
            return True
        code = result.error_code
        if code in ("timeout", "unanswered"):
            return True
        return None if code == "agent-terminated" or code == UNTOLD else False


@dataclass
class Facts:
    """What one conversation delivered and sent, for the flow checks of a bundle."""

    agent: Agent
    deliveries: list[DeliveredEnvelope] = field(default_factory=list)
    """Tasks, Messages, Asks and Answers delivered as user messages, in order."""
    outputs: dict[str, list[Output]] = field(default_factory=dict)
    """Outputs (progress and completion reports) delivered, by sender, in order."""
    calls: list[Call] = field(default_factory=list)
    run_results: list[tuple[str, str, Callable[[], None]]] = field(default_factory=list)
    """(sender, content, report) of each completion whose run result TW606 finds wrong: the
    session checks make the report unless the sender said that text itself (TW604's then)."""
    texts: list[tuple[int, str, bool]] = field(default_factory=list)
    """(index, text, has tool calls) of each assistant message with non-blank text."""
    ids: dict[str, tuple[Any, ...]] = field(default_factory=dict)
    """Envelope id → (index of its first delivery, then what makes the message itself: its
    sender, label, tag and content, or in a stream their hash). Two deliveries of one message
    have the same entry but for the index (``entry[1:]``); one tuple, as an id is
    remembered for every delivery."""
    pointer: str = ""
    """The pointer of the conversation's message array, e.g. ``/agents/Team Leader/messages``."""


def created_name(tool: str | None, value: Any) -> str | None:
    """The display name a successful create_sub_agent result (a decoded JSON object) gives
    the new sub-agent, if it gives one."""
    if tool != "create_sub_agent" or type(value) is not dict:
        return None
    shown = value.get("display_name")
    return shown if type(shown) is str and shown else None
