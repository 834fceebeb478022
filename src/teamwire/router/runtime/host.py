"""What the protocol tools may ask of the session that runs them: a narrow interface."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Protocol

from teamwire.envelope import MessageType
from teamwire.router.actions import AcknowledgeSend, FailToolCall
from teamwire.router.records import AgentRecord, RoutedMessage
from teamwire.router.runtime.roles import RoleInfo
from teamwire.router.states import AgentState

SendOutcome = AcknowledgeSend | FailToolCall
"""How the router took a send or an answer: accepted (acknowledged) or refused."""


class CoreView(Protocol):
    """The routing core, read only (``RoutingCore`` is one)."""

    def state(self, agent: str) -> AgentState:
        """The state of ``agent`` (``ABSENT`` if there is no such agent)."""
        ...

    def record(self, agent: str) -> AgentRecord:
        """The persisted form of ``agent``."""
        ...

    def records(self) -> list[AgentRecord]:
        """Every agent, in the order they were created."""
        ...

    def pending(self, agent: str) -> tuple[RoutedMessage, ...]:
        """Messages queued for ``agent`` and not yet delivered."""
        ...

    def tool_calls(self, agent: str) -> int:
        """Tool calls of ``agent`` reported so far."""
        ...

    def resolve_target(self, agent_id: int, role_id: str | None = None, *,
                       exclude: str | None = None) -> str:
        """The display name of the sub-agent a targeting tool call means."""
        ...


class ToolHost(Protocol):
    """The session, as its protocol tools see it.

    Every change is staged: it commits with the calling tool's result. The
    methods that route a message return the router's outcome for that call.
    """

    @property
    def core(self) -> CoreView:
        """The routing core, to read agents' states and records."""
        ...

    @property
    def roles(self) -> Mapping[str, RoleInfo]:
        """The role catalog, by role id."""
        ...

    @property
    def last_output(self) -> Mapping[str, str]:
        """Each agent's latest natural output."""
        ...

    def create_agent(self, name: str, role_id: str, turn_timeout: float | None) -> None:
        """Register a sub-agent (and its turn timeout, if given) before its TASK is sent."""
        ...

    def add_role(self, role: RoleInfo) -> None:
        """Add a role to the catalog."""
        ...

    def send(self, sender: str, call_id: str, receiver: str, kind: MessageType,
             content: str) -> SendOutcome:
        """Route a Task or a Message of tool call ``call_id``."""
        ...

    def answer(self, sender: str, call_id: str, asker: str, question_id: str,
               content: str) -> SendOutcome:
        """Route an answer to the ask ``question_id`` of ``asker``."""
        ...

    async def ask(self, agent: str, call_id: str, target: str, question_id: str,
                  content: str) -> str:
        """Route an ask, committed at once, and wait for its result's tool-message text.

        Raises ``StoreFailure`` if the ask could not be stored (it did nothing).
        """
        ...

    def terminate(self, name: str) -> object:
        """Terminate a sub-agent; its turn stops when the call commits (the result is not
        the tools' business)."""
        ...
