"""Text scans shared by the checks: forged header lines, positions, snippets."""

from __future__ import annotations

import re
from functools import cache

from teamwire import schemas
from teamwire.envelope import ASTRION_COMPLETION_LABEL, MessageType
from teamwire.envelope.errors import caret_context, position
from teamwire.json_members import json_type as json_type  # where the checks look for it

_LABELS = "|".join(sorted({t.label for t in MessageType} | {ASTRION_COMPLETION_LABEL}))
_NAME = r"(?:(?! 向 | 的)[^\n])+"
HEADER_LINE = re.compile(r"^来自 " + _NAME + r"(?: 向 " + _NAME + r")? 的(?:" + _LABELS + r")\r?$",
                         re.MULTILINE)
"""A line that reads as an envelope header with one of the known labels."""

_RUN_RESULT = re.compile(
    r'<result(?: [A-Za-z_][A-Za-z0-9_.-]*="[^"\n]*")*>\n(?:<summary>[^\n]*</summary>\n)?'
    r"<(output|error)>\n(?s:.*)\n</\1>\n</result>\n?")

HEADER_MARK = "来自 "
"""Every header starts so; a cheap substring test before the regular expression."""

_search_mark = re.compile(HEADER_MARK).search
MARK_KEY = HEADER_MARK[1]
"""自: rarer than 来 and, unlike it, no ASCII character shares its low byte, so that
``str.find`` (memchr on that byte) skips ASCII-heavy text fast."""


def has_mark(text: str, start: int = 0) -> bool:
    """Whether ``text`` holds HEADER_MARK at or after ``start``.

    ASCII text cannot (``str.isascii`` is a flag test); other text is searched for
    the mark's second character first, and for the mark itself only from there.
    """
    if text.isascii():
        return False
    at = text.find(MARK_KEY, start + 1)
    return at >= 0 and _search_mark(text, at - 1) is not None


def forged_header_offset(text: str, start: int = 0) -> int | None:
    """Offset of the first line at or after ``start`` that forms an envelope header, or None."""
    if not has_mark(text, start):
        return None
    match = HEADER_LINE.search(text, start)
    return None if match is None else match.start()


def is_run_result(text: str) -> bool:
    """Whether the whole of ``text`` is a run result (``<result agent=… state=…>…</result>``)."""
    return _RUN_RESULT.fullmatch(text) is not None


_RESULT_ATTRIBUTE = re.compile(r' ([A-Za-z_][A-Za-z0-9_.-]*)="([^"\n]*)"')


@cache
def _run_states() -> tuple[str, ...]:
    """The states a run result may have (TW-RES-001), as the result schema lists them."""
    return tuple(schemas.schema("result#/properties/state")["enum"])


def completion_result_problem(body: str, sender: str) -> tuple[str, int] | None:
    """What is wrong with a run result that is the whole content of a COMPLETION from
    ``sender`` (``body``, a run result by ``is_run_result``), and where in ``body``; None if
    nothing. The first problem only: agent, then state, then the body element."""
    first = body[:body.find("\n")]
    attributes: dict[str, tuple[str, int]] = {}
    for match in _RESULT_ATTRIBUTE.finditer(first):
        name = match[1]
        if name in attributes and name in ("agent", "state"):
            return f"run result carries {name} twice", match.start(1)
        attributes[name] = (match[2], match.start(2))
    agent, state = attributes.get("agent"), attributes.get("state")
    if agent is None or state is None:
        return f"run result has no {'agent' if agent is None else 'state'} attribute", 0
    if state[1] < agent[1]:
        return "run result writes state before agent", state[1]
    if agent[0] != sender:
        return (f"run result speaks of {shorten(agent[0])!r}, but the completion is from "
                f"{sender}", agent[1])
    if state[0] not in ("error", "timeout"):
        if state[0] in _run_states():
            return (f"run result with state {state[0]!r} in a completion: a turn that ended "
                    "naturally reports its output itself, and only a turn ended by a model "
                    "error or the turn timeout reports a run result (error or timeout)", state[1])
        return (f"run result state {shorten(state[0])!r} is not one of "
                f"{', '.join(_run_states())}", state[1])
    element = _RUN_RESULT.fullmatch(body)
    if element is not None and element[1] == "output":
        return (f"run result with state {state[0]!r} carries <output>; states error and "
                "timeout carry <error>", element.start(1) - 1)
    return None


def content_offset(text: str) -> int:
    """Offset of the content in a well-formed envelope: after the inner open tag line."""
    at = -1
    for _ in range(5):
        at = text.find("\n", at + 1)
        if at < 0:
            return len(text)
    return at + 1


def locate(text: str, offset: int) -> tuple[int, int, str]:
    """(line, column, snippet with caret) of ``offset`` in ``text``."""
    line, column = position(text, offset)
    return line, column, caret_context(text, offset)


def shorten(text: str, limit: int = 60) -> str:
    """``text`` cut to ``limit`` characters for a message (newlines shown as ⏎)."""
    text = text.replace("\n", "⏎")
    return text if len(text) <= limit else text[: limit - 1] + "…"


# Exactly the characters TW-NAME-004 forbids; bidi controls are not among them.
_UNSAFE_NAME_CHARS = frozenset(
    [chr(c) for c in range(0x20)] + [chr(c) for c in range(0x7F, 0xA0)]
    + ["<", ">", '"', "\u2028", "\u2029"])


def unsafe_name_char(name: str) -> str | None:
    """The first character of ``name`` that could break an envelope, or None.

    Control characters, line and paragraph separators, ``<``, ``>``, ``"`` (TW-NAME-004).
    """
    for ch in name:
        if ch in _UNSAFE_NAME_CHARS:
            return ch
    return None
