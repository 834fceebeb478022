"""JSON text as written: its tokens, JSON pointers (RFC 6901) into it, and where in the
text the value at a pointer starts.

One tokenizer serves every scan of JSON text that must not decode it (finding a member named
twice, placing a finding on the line its value starts): a string of any length is one token,
punctuation is one token each, and any other run (a number, ``true``, ``false``, ``null``) is
one token. Scans walk it with an explicit stack, so nesting costs no recursion.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from typing import Any

TOKEN = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[{}\[\],:]|[^\s{}\[\],:"]+', re.DOTALL)
"""A token of JSON text: a string, one punctuation character, or a run of anything else."""


def value_kind(value: Any) -> str:
    """What a decoded JSON value is, as an error message names it ("a string", "null")."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    return "an array" if isinstance(value, list) else "an object"


def string_value(token: str) -> str:
    """The text a string token stands for (escapes decoded; the token's inside as written if
    it is not a valid JSON string)."""
    if "\\" not in token:
        return token[1:-1]
    try:
        value = json.loads(token)
    except ValueError:
        return token[1:-1]
    return value if isinstance(value, str) else token[1:-1]


def escape_pointer_token(token: str) -> str:
    """One reference token of a JSON pointer: ``~`` written ``~0``, ``/`` written ``~1``."""
    if "~" in token or "/" in token:
        return token.replace("~", "~0").replace("/", "~1")
    return token


def unescape_pointer_token(token: str) -> str:
    """The member name or index a reference token stands for (``~1`` first, then ``~0``)."""
    if "~" in token:
        return token.replace("~1", "/").replace("~0", "~")
    return token


def json_pointer(parts: Iterable[str | int]) -> str:
    """The JSON pointer of a path of member names and array indices (``""`` for the top)."""
    return "".join("/" + escape_pointer_token(str(part)) for part in parts)


class Lines:
    """Turns increasing offsets into (line, column) without rescanning the text."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.line = 1
        self.line_start = 0
        self.scanned = 0

    def at(self, offset: int) -> tuple[int, int]:
        text = self.text
        self.line += text.count("\n", self.scanned, offset)
        newline = text.rfind("\n", self.scanned, offset)
        if newline >= 0:
            self.line_start = newline + 1
        self.scanned = offset
        return self.line, offset - self.line_start + 1


def locate_pointers(text: str, pointers: Iterable[str]) -> dict[str, tuple[int, int]]:
    """1-based (line, column) in ``text`` where the value at each pointer starts, if it exists."""
    return {pointer: (line, column) for pointer, (line, column, _offset)
            in locate_offsets(text, pointers).items()}


def locate_offsets(text: str, pointers: Iterable[str]) -> dict[str, tuple[int, int, int]]:
    """(line, column, offset in ``text``) where the value at each pointer starts."""
    wanted = set(pointers)
    found: dict[str, tuple[int, int, int]] = {}
    if not wanted:
        return found
    prefixes = {p[:i] for p in wanted for i in range(len(p) + 1) if i == len(p) or p[i] == "/"}
    lines = Lines(text)
    # Each frame: [path of the container, is an array, next index, key awaiting its value]
    stack: list[list[object]] = []
    expect_key = False
    skipping = 0
    # Once every pointer is found, read on only until the objects holding them have closed:
    # a duplicated member (the decoder keeps the last) can only come before that. ``depth``
    # is the stack depth of the shallowest such object still open.
    depth: int | None = None
    for match in TOKEN.finditer(text):
        token = match.group()
        first = token[0]
        if skipping:
            if first in "{[":
                skipping += 1
            elif first in "}]":
                skipping -= 1
            continue
        if first == ":":
            continue
        if first == ",":
            expect_key = bool(stack) and not stack[-1][1]
            continue
        if first in "}]":
            if stack:
                stack.pop()
            expect_key = False
            if depth is not None and len(stack) < depth:
                depth = None  # every object holding a found member has closed
                if len(found) == len(wanted):
                    break
            continue
        if expect_key:
            if first == '"':
                stack[-1][3] = string_value(token)
            expect_key = False
            continue
        if stack:
            frame = stack[-1]
            if frame[1]:
                index = frame[2]
                assert isinstance(index, int)
                frame[2] = index + 1
                current = f"{frame[0]}/{index}"
            else:
                current = f"{frame[0]}/{escape_pointer_token(str(frame[3]))}"
        else:
            current = ""
        if current in wanted:
            found[current] = (*lines.at(match.start()), match.start())
            if stack and not stack[-1][1]:
                depth = len(stack) if depth is None else min(depth, len(stack))
            if len(found) == len(wanted) and depth is None:
                break
        if first in "{[":
            if current in prefixes:
                stack.append([current, first == "[", 0, None])
                expect_key = first == "{"
            else:
                skipping = 1
    return found
