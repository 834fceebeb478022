"""A session turned into what is drawn: each message as a card in its lane, in the one
order the links allow, arrows from send to delivery, turns as spans, and notes where the
order between lanes is unknown."""

from __future__ import annotations

from dataclasses import dataclass

import orjson

from teamwire.validator import Finding, Link, Severity
from teamwire.view.order import Order, order
from teamwire.view.sequence import KINDS, Arrow, Card, Diagram, Gap, Lane, Span, kind_of
from teamwire.view.session import Row, Session

_RANK = {Severity.ERROR: 0, Severity.WARNING: 1, Severity.INFO: 2}


@dataclass(frozen=True)
class Described:
    """How one message is shown: the kinds it has (for filters), a title, whom it comes
    from or goes to, and its text."""

    kinds: tuple[str, ...]
    title: str
    peer: str
    text: str


def session_order(session: Session) -> Order:
    """The order of every message of ``session``, from the linter's links."""
    return order([len(lane.rows) for lane in session.lanes], edges(session))


def edges(session: Session) -> list[tuple[tuple[int, int], tuple[int, int]]]:
    """The links as (lane, index) → (lane, index), in the linter's order (-1 lanes for
    agents that have no lane)."""
    lanes = {lane.name: k for k, lane in enumerate(session.lanes)}
    return [((lanes.get(link.sender, -1), link.sent_at),
             (lanes.get(link.receiver, -1), link.delivered_at)) for link in session.links]


class Describer:
    """Describes the messages of one session, with the links and calls indexed once."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self.sends: dict[tuple[str, int], list[Link]] = {}
        for link in session.links:
            self.sends.setdefault((link.sender, link.sent_at), []).append(link)
        self.calls: list[dict[str, str]] = [
            {c.call_id: c.name for r in lane.rows for c in r.calls} for lane in session.lanes]

    def __call__(self, row: Row) -> Described:
        """The kinds, title, peer and text of ``row``'s card."""
        lane = self.session.lanes[row.lane]
        sends = self.sends.get((lane.name, row.index), []) if row.role == "assistant" else []
        envelope = row.envelope
        if envelope is not None:
            key = kind_of(envelope.mtype)
            kind = KINDS[key]
            title = f"{kind.label} {kind.gloss}" if kind.label else "envelope"
            return Described((key,), title, f"from {envelope.sender}", envelope.content)
        if sends:
            keys = tuple(dict.fromkeys(kind_of(link.mtype) for link in sends))
            first = KINDS[keys[0]]
            receivers = list(dict.fromkeys(link.receiver for link in sends))
            peer = f"to {receivers[0]}" + (f" +{len(receivers) - 1}" if len(receivers) > 1
                                           else "")
            return Described(keys, f"{first.label} {first.gloss}", peer,
                             row.text.strip() or _said(row))
        if row.role == "assistant":
            peer = f"calls {', '.join(c.name for c in row.calls)}" if row.calls else ""
            return Described(("other",), "assistant", peer, row.text.strip() or _said(row))
        if row.role == "tool":
            name = self.calls[row.lane].get(row.call_id or "")
            return Described(("other",), "tool result", f"of {name}" if name else "", row.text)
        return Described(("other",), {"system": "system prompt", "user": "user"}.get(
            row.role, f"{row.role} message"), "", row.text)


def describe(session: Session, row: Row) -> Described:
    """The kinds, title, peer and text of ``row``'s card (``Describer`` for many rows)."""
    return Describer(session)(row)


_SAID = ("task", "message", "question", "content", "answer")
"""Arguments that carry what a protocol tool call says, in the order looked for."""


def _said(row: Row) -> str:
    """What the tool calls of ``row`` say: the text argument of the first call that has
    one, else the calls as written."""
    for call in row.calls:
        try:
            arguments = orjson.loads(call.arguments)
        except orjson.JSONDecodeError:
            continue
        if type(arguments) is dict:
            for key in _SAID:
                if type(arguments.get(key)) is str:
                    return str(arguments[key])
    return ", ".join(f"{c.name}({c.arguments})" for c in row.calls)


def worst(findings: list[Finding]) -> str:
    """The worst severity among ``findings`` (empty for none)."""
    if not findings:
        return ""
    return min(findings, key=lambda f: _RANK[f.severity]).severity.value


def findings_by_row(session: Session) -> dict[tuple[int, int], list[Finding]]:
    """The findings about each message, by (lane, index)."""
    lanes = {lane.name: k for k, lane in enumerate(session.lanes)}
    found: dict[tuple[int, int], list[Finding]] = {}
    for finding in session.findings:
        lane = lanes.get(finding.agent or "") if session.bundle else 0
        if lane is None or finding.index is None \
                or not 0 <= finding.index < len(session.lanes[lane].rows):
            continue
        found.setdefault((lane, finding.index), []).append(finding)
    return found


def session_diagram(session: Session, placed: Order | None = None,
                    protocol_only: bool = False) -> Diagram:
    """``session`` as a ``Diagram``; ``protocol_only`` keeps only the messages that send
    or deliver a protocol message (a compact figure)."""
    placed = placed if placed is not None else session_order(session)
    ends = {node for pair in edges(session) for node in pair}
    positions = [p for p, node in enumerate(placed.sequence)
                 if not protocol_only or node in ends]
    row_of = {placed.sequence[p]: r for r, p in enumerate(positions)}
    lanes = [Lane(str(k), lane.name, lane.role_id or "") for k, lane in enumerate(session.lanes)]
    findings = findings_by_row(session)
    describe_row = Describer(session)
    cards = []
    for (lane, index), r in row_of.items():
        row = session.lanes[lane].rows[index]
        shown = describe_row(row)
        title = f"{shown.title} · {shown.peer}" if shown.peer else shown.title
        cards.append(Card(str(lane), r, title, shown.text, shown.kinds[0],
                          worst(findings.get((lane, index), []))))
    arrows = []
    for k, (source, target) in enumerate(edges(session)):
        if source in row_of and target in row_of:
            receiver = session.lanes[target[0]].rows[target[1]]
            link = session.links[k]
            arrows.append(Arrow(str(source[0]), str(target[0]), kind=kind_of(link.mtype),
                                how=receiver.how.value if receiver.how else "",
                                start=row_of[source], end=row_of[target],
                                against=k in placed.against))
    spans = []
    for turn in session.turns:
        inside = [row_of[(turn.lane, i)] for i in range(turn.first, turn.last + 1)
                  if (turn.lane, i) in row_of]
        if inside:
            spans.append(Span(str(turn.lane), min(inside), max(inside)))
    gaps = [Gap(r) for r in range(1, len(positions))
            if placed.sequence[positions[r]][0] != placed.sequence[positions[r - 1]][0]
            and not placed.precedes(positions[r - 1], positions[r])]
    return Diagram(lanes, arrows, cards, spans, gaps, session.name)
