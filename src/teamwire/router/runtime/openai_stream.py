"""Streamed chat completions: the server-sent events of ``"stream": true`` put back together.

An OpenAI-compatible endpoint streams a reply as ``data: {chunk}`` events ended by
``data: [DONE]``. Each chunk's ``choices[0].delta`` adds a piece: text to the content, or to a
tool call (found by its ``index``) an id, a name or a piece of its arguments text. What the
pieces add up to is the same assistant message a plain response would have held.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from teamwire.router.runtime.driver import DriverError, Reply, ToolCall

DONE = "[DONE]"


@dataclass
class _CallPieces:
    id: str = ""
    name: str = ""
    arguments: list[str] = field(default_factory=list)


@dataclass
class StreamedReply:
    """The pieces of one streamed reply, added event by event (``add``) until ``reply``."""

    content: list[str] = field(default_factory=list)
    calls: dict[int, _CallPieces] = field(default_factory=dict)
    done: bool = False

    def add(self, line: str, number: int) -> None:
        """Take one line of the event stream (``number`` counts from 1, for errors)."""
        if self.done or not line.startswith("data:"):
            return  # blank separators, comments (":"), event names, anything after [DONE]
        data = line[len("data:"):].strip()
        if data == DONE:
            self.done = True
            return
        try:
            chunk = json.loads(data)
        except (ValueError, RecursionError) as exc:
            raise DriverError(f"streamed event at line {number} is not JSON: {exc}") from None
        self._add_chunk(chunk, number)

    def _add_chunk(self, chunk: Any, number: int) -> None:
        if not isinstance(chunk, dict):
            raise DriverError(f"streamed event at line {number} is not a JSON object")
        if "error" in chunk:  # some endpoints report a failure inside the stream
            raise DriverError(f"the endpoint reported an error at line {number}: "
                              f"{str(chunk['error'])[:500]}")
        choices = chunk.get("choices")
        if not choices:
            return  # a usage-only chunk
        try:
            delta = choices[0].get("delta") or {}
            text = delta.get("content")
            if text is not None:
                if not isinstance(text, str):
                    raise DriverError(f"streamed content at line {number} is not a string")
                self.content.append(text)
            for piece in delta.get("tool_calls") or ():
                self._add_call_piece(piece)
        except (AttributeError, TypeError, KeyError, IndexError) as exc:
            raise DriverError(f"unexpected streamed chunk at line {number}: {exc!r}") from None

    def _add_call_piece(self, piece: dict[str, Any]) -> None:
        index = piece.get("index", len(self.calls))
        if not isinstance(index, int) or isinstance(index, bool):
            raise TypeError(f"tool call index {index!r}")
        call = self.calls.setdefault(index, _CallPieces())
        if piece.get("id"):
            call.id = str(piece["id"])
        function = piece.get("function") or {}
        if function.get("name"):
            call.name += str(function["name"])
        arguments = function.get("arguments")
        if arguments:
            call.arguments.append(str(arguments))

    def reply(self) -> Reply:
        """The assistant message the pieces make; DriverError if the stream did not end."""
        if not self.done:
            raise DriverError("the streamed response ended before data: [DONE]")
        text = "".join(self.content)
        calls = []
        for index in sorted(self.calls):
            call = self.calls[index]
            if not call.name:
                raise DriverError(f"streamed tool call {index} has no function name")
            calls.append(ToolCall(call.id, call.name, "".join(call.arguments) or "{}"))
        # A stream opens with an empty content piece whether or not the model writes text, so
        # no text at all reads as a message without content, as a plain response gives it.
        return Reply(text or None, tuple(calls))


def read_event_stream(lines: Iterable[bytes],
                      on_text: Callable[[str], None] | None = None) -> Reply:
    """The assistant message of a streamed chat-completions response, read line by line;
    ``on_text`` is told each piece of its text as it is read."""
    pieces = StreamedReply()
    for number, raw in enumerate(lines, start=1):
        try:
            line = raw.decode("utf-8").rstrip("\r\n")
        except UnicodeDecodeError as exc:
            raise DriverError(f"streamed line {number} is not UTF-8: {exc}") from None
        had = len(pieces.content)
        pieces.add(line, number)
        if on_text is not None:
            for text in pieces.content[had:]:
                on_text(text)
        if pieces.done:
            break
    return pieces.reply()
