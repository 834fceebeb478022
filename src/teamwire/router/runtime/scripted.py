"""A deterministic driver: replies from a script, each after a virtual "thinking" delay."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from teamwire.router.runtime.clock import Clock
from teamwire.router.runtime.driver import Reply, ToolCall


@dataclass(frozen=True)
class Step:
    """One scripted assistant message: text, tool calls ``(name, arguments)``, and its delay."""

    content: str | None = None
    calls: tuple[tuple[str, Mapping[str, Any] | str], ...] = field(default=())
    delay: float = 1.0
    """Virtual seconds the model call takes."""


class ScriptedAgent:
    """Replays ``steps`` in order, one per model call, whatever else the conversation says.

    The step to play is the one after the assistant messages already in the
    conversation, so a session resumed after a restart continues the script
    where its stored conversation stopped (a reply lost in the crash is played
    again). Once the script is used up every call returns an empty reply,
    which ends the turn without output. Tool call ids are ``call_{tag}_{n}``,
    numbered on from the calls already in the conversation; arguments given as
    a mapping are written as JSON, a string is passed on unchanged (so a
    script can send malformed arguments on purpose).
    """

    def __init__(self, steps: Iterable[Step], clock: Clock, *, tag: str = "a") -> None:
        self._steps = list(steps)
        self._clock = clock
        self._tag = tag
        self.seen: list[list[dict[str, Any]]] = []
        """The conversation as it stood at each model call (for tests)."""

    async def complete(self, agent: str, messages: list[dict[str, Any]],
                       tools: list[dict[str, Any]]) -> Reply:
        self.seen.append([dict(m) for m in messages])
        replies = [m for m in messages if m.get("role") == "assistant"]
        if len(replies) >= len(self._steps):
            return Reply()
        step = self._steps[len(replies)]
        made = sum(len(m.get("tool_calls") or ()) for m in replies)
        await self._clock.sleep(step.delay)
        calls = []
        for n, (name, arguments) in enumerate(step.calls, made + 1):
            text = arguments if isinstance(arguments, str) else json.dumps(
                dict(arguments), ensure_ascii=False)
            calls.append(ToolCall(f"call_{self._tag}_{n}", name, text))
        return Reply(step.content, tuple(calls))
