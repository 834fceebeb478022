"""Text scans shared by the checks: forged header lines, run results in completions,
positions, snippets."""

from __future__ import annotations

import re

from teamwire.envelope.errors import caret_context, position
from teamwire.envelope.header import HEADER_LINE as HEADER_LINE
from teamwire.envelope.header import HEADER_MARK as HEADER_MARK
from teamwire.envelope.header import MARK_KEY as MARK_KEY
from teamwire.envelope.header import has_mark as has_mark
from teamwire.envelope.header import header_line_offset
from teamwire.envelope.run_result import RUN_STATES, read_run_result
from teamwire.envelope.run_result import is_run_result as is_run_result
from teamwire.json_members import json_type as json_type  # where the checks look for it

# The states a run result may have (TW-RES-001), named in findings in the result schema's
# (alphabetical) order; a test keeps RUN_STATES equal to the schema's.
_RUN_STATES = tuple(sorted(RUN_STATES))

# The header-line reader is the envelope package's; the checks find it here.
forged_header_offset = header_line_offset


def completion_result_problem(body: str, sender: str) -> tuple[str, int] | None:
    """What is wrong with a run result that is the whole content of a COMPLETION from
    ``sender`` (``body``, a run result by ``is_run_result``), and where in ``body``; None if
    nothing. The first problem only: agent, then state, then the body element."""
    result = read_run_result(body)
    if result is None:
        return None
    attributes: dict[str, tuple[str, int]] = {}
    for name, value, value_at in result.attributes:
        if name in attributes and name in ("agent", "state"):
            return f"run result carries {name} twice", value_at - len(name) - 2
        attributes[name] = (value, value_at)
    agent, state = attributes.get("agent"), attributes.get("state")
    if agent is None or state is None:
        return f"run result has no {'agent' if agent is None else 'state'} attribute", 0
    if state[1] < agent[1]:
        return "run result writes state before agent", state[1]
    if agent[0] != sender:
        return (f"run result speaks of {shorten(agent[0])!r}, but the completion is from "
                f"{sender}", agent[1])
    if state[0] not in ("error", "timeout"):
        if state[0] in _RUN_STATES:
            return (f"run result with state {state[0]!r} in a completion: a turn that ended "
                    "naturally reports its output itself, and only a turn ended by a model "
                    "error or the turn timeout reports a run result (error or timeout)", state[1])
        return (f"run result state {shorten(state[0])!r} is not one of "
                f"{', '.join(_RUN_STATES)}", state[1])
    if result.body == "output":
        return (f"run result with state {state[0]!r} carries <output>; states error and "
                "timeout carry <error>", result.body_at)
    return None


def content_offset(text: str) -> int:
    """Offset of the content in a well-formed envelope: after the inner open tag line."""
    at = -1
    for _ in range(5):
        at = text.find("\n", at + 1)
        if at < 0:
            return len(text)
    return at + 1


def line_start(text: str, n: int) -> int:
    """Offset of the start of line ``n`` (0-based) of ``text``."""
    at = -1
    for _ in range(n):
        at = text.find("\n", at + 1)
        if at < 0:
            return len(text)
    return at + 1


def id_offset(text: str) -> int:
    """Offset of the id on an envelope's id line (the second line, after ``id: ``)."""
    return text.find("\n") + 5


def attribute_offset(text: str, name: str) -> int:
    """Offset of attribute ``name`` on the inner open tag line of an envelope."""
    start = line_start(text, 4)
    at = text.find(f" {name}=", start)
    return at + 1 if at >= 0 else start


def locate(text: str, offset: int) -> tuple[int, int, str]:
    """(line, column, snippet with caret) of ``offset`` in ``text``."""
    line, column = position(text, offset)
    return line, column, caret_context(text, offset)


def shorten(text: str, limit: int = 60) -> str:
    """``text`` cut to ``limit`` characters for a message (newlines shown as ⏎)."""
    text = text.replace("\n", "⏎")
    return text if len(text) <= limit else text[: limit - 1] + "…"


# Exactly the characters TW-NAME-004 forbids; bidi controls are not among them. One search
# of a class rather than a loop over the name: two checks of names test each name.
_UNSAFE_NAME_CHAR = re.compile(r'[\x00-\x1f\x7f-\x9f<>"\u2028\u2029]')


def unsafe_name_char(name: str) -> str | None:
    """The first character of ``name`` that could break an envelope, or None.

    Control characters, line and paragraph separators, ``<``, ``>``, ``"`` (TW-NAME-004).
    """
    found = _UNSAFE_NAME_CHAR.search(name)
    return None if found is None else found.group()
