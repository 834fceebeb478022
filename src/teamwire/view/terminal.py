"""A session as chat bubbles in the terminal: what ``teamwire demo`` prints as it runs and
``teamwire view --terminal`` prints for a recorded session."""

from __future__ import annotations

from collections.abc import Iterator

from rich.console import Console, RenderableType
from rich.panel import Panel
from rich.text import Text

from teamwire.envelope import LEADER_NAME
from teamwire.validator import Finding, Severity
from teamwire.view.diagram import findings_by_row, session_order
from teamwire.view.order import Order
from teamwire.view.session import How, Session

_PALETTE = ("cyan", "green", "yellow", "blue", "bright_red", "bright_cyan", "bright_green")
_SEVERITY = {Severity.ERROR: "red", Severity.WARNING: "yellow", Severity.INFO: "blue"}


def colour(name: str, others: list[str] | None = None) -> str:
    """The colour of an agent: the Team Leader's magenta, the others by their place in
    ``others`` (or by name, stably, when not given)."""
    if name == LEADER_NAME:
        return "magenta"
    if others is not None and name in others:
        return _PALETTE[others.index(name) % len(_PALETTE)]
    return _PALETTE[sum(name.encode("utf-8")) % len(_PALETTE)]


def bubble(sender: str, label: str, content: str, receiver: str, where: str,
           message_id: str, border: str | None = None) -> Panel:
    """One delivered message: sender and type label on top, receiver, placement and id
    below."""
    border = border or colour(sender)
    title = Text.assemble((sender, f"bold {border}"), " ", (label, "bold"))
    return Panel(Text(content), title=title, title_align="left",
                 subtitle=Text(f"to {receiver} · {where} · {message_id}"),
                 subtitle_align="right", border_style=border)


def _finding(finding: Finding) -> Text:
    return Text(f"  {finding.rule} {finding.severity.value}: {finding.message}",
                style=_SEVERITY[finding.severity])


def renderables(session: Session, placed: Order | None = None) -> Iterator[RenderableType]:
    """The bubbles of every protocol message delivered in ``session``, in order, each
    followed by its findings; findings about no message come first."""
    placed = placed if placed is not None else session_order(session)
    findings = findings_by_row(session)
    pinned = {id(f) for found in findings.values() for f in found}
    for finding in session.findings:
        if id(finding) not in pinned:
            yield _finding(finding)
    others = [lane.name for lane in session.lanes if lane.name != LEADER_NAME]
    previous: int | None = None
    for at, (lane, index) in enumerate(placed.sequence):
        row = session.lanes[lane].rows[index]
        found = findings.get((lane, index), [])
        if row.envelope is None:
            yield from (_finding(f) for f in found)
            continue
        if previous is not None and session.lanes[placed.sequence[previous][0]] is not \
                session.lanes[lane] and not placed.precedes(previous, at):
            yield Text("  ≀ order against the message above is not known", style="dim")
        previous = at
        envelope = row.envelope
        label = envelope.mtype.label if envelope.mtype is not None else "?"
        where = "tool result" if row.how is How.TOOL_RESULT else \
            f"user message, {row.how.value}" if row.how is not None else "user message"
        yield bubble(envelope.sender, label, envelope.content, session.lanes[lane].name, where, envelope.id,
                     colour(envelope.sender, others))
        yield from (_finding(f) for f in found)


def print_session(session: Session, console: Console, page: bool | None = None) -> None:
    """Print ``session``'s bubbles, through the pager when ``page`` (default: when the
    console is a terminal)."""
    if page is None:
        page = console.is_terminal
    if page:
        with console.pager(styles=True):
            for item in renderables(session):
                console.print(item)
    else:
        for item in renderables(session):
            console.print(item)
