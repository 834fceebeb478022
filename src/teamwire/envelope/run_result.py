"""Run results in their text form, written and read one way (TW-RES-001 to TW-RES-004).

A run result reports how an agent's run went::

    <result agent="UI Operator_1" state="completed">
    <summary>One line.</summary>          (optional)
    <output>                              (<error> for states error and timeout)
    the text
    </output>
    </result>

The router writes them with ``render_run_result``; the linter reads them with
``read_run_result``, which accepts any attributes on the first line (a reader judges the
``agent`` and ``state`` it finds there) and either body element.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

RUN_STATES = ("completed", "running", "error", "timeout", "terminated")
"""The states of a run (TW-RES-001); the result schema lists the same."""

OUTPUT_STATES = frozenset({"completed", "running"})
"""States whose result carries ``<output>``; the others carry ``<error>``."""

_WHOLE = re.compile(
    r'<result((?: [A-Za-z_][A-Za-z0-9_.-]*="[^"\n]*")*)>\n(?:<summary>([^\n]*)</summary>\n)?'
    r"<(output|error)>\n((?s:.*))\n</\3>\n</result>\n?")
_ATTRIBUTE = re.compile(r' ([A-Za-z_][A-Za-z0-9_.-]*)="([^"\n]*)"')


@dataclass(frozen=True)
class RunResult:
    """A run result as written: its attributes in order with the offset of each value,
    the summary line's text if any, the body element (``output`` or ``error``) and its
    offset (of the ``<``), and the text inside the body."""

    attributes: tuple[tuple[str, str, int], ...]
    summary: str | None
    body: str
    body_at: int
    text: str

    def attribute(self, name: str) -> str | None:
        """The value of the first attribute called ``name``, or None."""
        for found, value, _offset in self.attributes:
            if found == name:
                return value
        return None


def read_run_result(text: str) -> RunResult | None:
    """The run result that is the whole of ``text``, or None if ``text`` is not one."""
    match = _WHOLE.fullmatch(text)
    if match is None:
        return None
    at = match.start(1)
    attributes = tuple((a[1], a[2], at + a.start(2)) for a in _ATTRIBUTE.finditer(match[1]))
    return RunResult(attributes, match[2], match[3], match.start(3) - 1, match[4])


def is_run_result(text: str) -> bool:
    """Whether the whole of ``text`` is a run result."""
    return _WHOLE.fullmatch(text) is not None


def render_run_result(agent: str, state: str, text: str, summary: str | None = None) -> str:
    """The canonical text of a run result: ``<output>`` for completed and running, else
    ``<error>``; a summary is written on one line, its white space runs made single spaces."""
    if state not in RUN_STATES:
        raise ValueError(f"unknown run state {state!r}")
    body = "output" if state in OUTPUT_STATES else "error"
    lines = [f'<result agent="{agent}" state="{state}">']
    if summary is not None:
        lines.append(f"<summary>{' '.join(summary.split())}</summary>")
    lines += [f"<{body}>", text, f"</{body}>", "</result>"]
    return "\n".join(lines)
