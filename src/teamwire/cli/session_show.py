"""A running session as a person reads it: what ``teamwire demo`` and ``teamwire run`` print.

On a terminal each delivered message is a chat bubble (``teamwire.view.terminal.bubble``) and
a streamed reply's text shows as it arrives; anywhere else (a pipe, a file, CI's log) each
message is a plain header line with its content indented below it, and streamed text is not
shown piece by piece (the messages it leads to are).
"""

from __future__ import annotations

import os
import sys
from typing import Any

from rich.console import Console
from rich.panel import Panel
from rich.text import Text

from teamwire.envelope import LEADER_NAME
from teamwire.router.records import RoutedMessage
from teamwire.view.terminal import bubble, colour

_INDENT = "    "


class PipeConsole(Console):
    """A console that stops printing when its reader goes away (``teamwire demo | head``)
    instead of ending the run: the session goes on and its files are still written."""

    def on_broken_pipe(self) -> None:
        self.quiet = True
        # Python flushes standard output once more at exit; that flush must not fail too.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())


class SessionShow:
    """The listener of a session that prints it to ``console`` as it runs.

    ``turn_failures``: print a turn ended by a failed model call or its timeout among the
    messages (the demo); a command that reports them on standard error says False.
    ``explained``: error codes of failed tool calls with a line to print under them (the
    demo's deliberate mistakes), so that they do not read as bugs.
    """

    def __init__(self, console: Console, *, turn_failures: bool = True,
                 explained: dict[str, str] | None = None) -> None:
        self.console = console
        self.turn_failures = turn_failures
        self.explained = dict(explained or {})
        self._agents: list[str] = []
        self._live: str | None = None
        """The agent whose streamed text the current line holds, if a line is open."""

    @property
    def bubbles(self) -> bool:
        """Whether messages are drawn as bubbles (on a terminal) or written as plain lines."""
        return self.console.is_terminal

    def _colour(self, name: str) -> str:
        if name != LEADER_NAME and name not in self._agents:
            self._agents.append(name)  # colours by first appearance: stable through a session
        return colour(name, self._agents)

    def __call__(self, kind: str, data: dict[str, Any]) -> None:
        if kind == "deliver":
            self.message(data["message"], data["receiver"], data["placement"])
        elif kind == "tool-error":
            error = data["error"]
            self._line(Text(f"  {data['agent']} · {data['tool']} failed: "
                            f"{error['code']} ({error['message']})", style="yellow"))
            why = self.explained.get(error["code"])
            if why is not None:
                self._line(Text(f"  ({why})", style="dim"))
        elif kind == "turn-failed" and self.turn_failures:
            self._line(Text(f"  {data['agent']} · turn ended by {data['state']}: "
                            f"{data['problem']}", style="red"))

    def message(self, message: RoutedMessage, receiver: str, placement: str) -> None:
        """One delivered protocol message."""
        where = "tool result" if placement == "tool" else "user message"
        self._colour(receiver)
        if self.bubbles:
            self._line(bubble(message.sender, message.kind.label, message.content, receiver,
                              where, message.id, self._colour(message.sender)))
            return
        self._line(Text(f"{message.sender} → {receiver} · {where} · "
                        f"{message.kind.label} {message.id}"))
        for line in message.content.splitlines() or [""]:
            self._line(Text(_INDENT + line if line else ""))

    def text_piece(self, agent: str, piece: str) -> None:
        """A piece of the text ``agent``'s model is streaming; shown on a terminal only."""
        if not self.bubbles or not piece:
            return
        if self._live != agent:
            self._close()
            self.console.print(Text(f"{agent} ▸ ", style=f"bold {self._colour(agent)}"),
                               end="", soft_wrap=True)
            self._live = agent
        self.console.print(Text(piece, style="dim"), end="", soft_wrap=True)

    def reply_done(self, agent: str) -> None:
        """``agent``'s model call has ended: its streamed line, if open, is ended too."""
        if self._live == agent:
            self._close()

    def final_answer(self, text: str | None) -> None:
        """The Team Leader's final answer (``None``: it wrote none)."""
        if text is None:
            self._line(Text("The Team Leader wrote no answer.", style="yellow"))
        elif self.bubbles:
            self._line(Panel(Text(text), title=Text.assemble((LEADER_NAME, "bold magenta"),
                                                             " · final answer"),
                             title_align="left", border_style="magenta"))
        else:
            self._line(Text(f"{LEADER_NAME} · final answer:"))
            self._line(Text(text))

    def _close(self) -> None:
        if self._live is not None:
            self.console.print()
            self._live = None

    def _line(self, item: Any) -> None:
        self._close()
        # A message's text is printed as it is: never read as markup, never wrapped by rich
        # where a plain line is asked for.
        self.console.print(item, soft_wrap=not self.bubbles)


def final_answer(conversations: dict[str, list[dict[str, Any]]]) -> str | None:
    """The Team Leader's final answer: the text of its last assistant message that has any."""
    for entry in reversed(conversations.get(LEADER_NAME, [])):
        text = entry.get("content")
        if entry.get("role") == "assistant" and isinstance(text, str) and text.strip():
            return text
    return None
