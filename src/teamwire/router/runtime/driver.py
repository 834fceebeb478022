"""The interface between a session and whatever produces an agent's next assistant message."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol


@dataclass(frozen=True)
class ToolCall:
    """One function call of an assistant message; ``arguments`` is JSON text."""

    id: str
    name: str
    arguments: str


@dataclass(frozen=True)
class Reply:
    """An assistant message: text (possibly None) and the tool calls it makes."""

    content: str | None = None
    tool_calls: tuple[ToolCall, ...] = field(default=())

    def to_message(self) -> dict[str, Any]:
        """The chat-completions form of this assistant message."""
        message: dict[str, Any] = {"role": "assistant", "content": self.content}
        if self.tool_calls:
            message["tool_calls"] = [
                {"id": c.id, "type": "function",
                 "function": {"name": c.name, "arguments": c.arguments}}
                for c in self.tool_calls]
        return message


class DriverError(Exception):
    """The model call failed; the session ends the turn with a run result of state error."""


class AgentDriver(Protocol):
    """Produces the next assistant message of one agent.

    The session owns the routing and the conversation; the driver owns the
    model (a scripted list of replies, an HTTP endpoint, ...). ``messages`` is
    the agent's whole conversation in chat-completions form, ``tools`` the
    function definitions the agent may call.
    """

    async def complete(self, agent: str, messages: list[dict[str, Any]],
                       tools: list[dict[str, Any]]) -> Reply:
        """Return the next assistant message, or raise DriverError."""
        ...


class RetryingDriver:
    """A driver that makes a failed model call again, up to ``retries`` more times, before
    it gives up (the ``model_retries`` setting, TW-ROUTE-031)."""

    def __init__(self, driver: AgentDriver, retries: int) -> None:
        if retries < 0:
            # counting down from below zero would never reach the last try
            raise ValueError(f"retries must be 0 or more, not {retries}")
        self.driver = driver
        self.retries = retries

    async def complete(self, agent: str, messages: list[dict[str, Any]],
                       tools: list[dict[str, Any]]) -> Reply:
        left = self.retries
        while True:
            try:
                return await self.driver.complete(agent, messages, tools)
            except DriverError:
                if left == 0:
                    raise
                left -= 1
