"""Message-sequence drawings: lanes side by side, arrows between them, one style per
message type.

One vocabulary for every picture of a session: ``teamwire view`` draws its interactive
page with these kinds, geometry and stylesheet (its script draws the visible part of the
same ``Diagram`` the page embeds), and ``render_svg`` draws a whole ``Diagram`` as one static
SVG, for certification reports and the docs site.

>>> svg = render_svg([Lane("a", "Team Leader"), Lane("b", "UI Operator_1")],
...                  [Arrow("a", "b", "Design the form", kind="task")])
>>> svg.startswith("<svg")
True

Every text is escaped: labels and names are data, never markup.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from xml.sax.saxutils import escape, quoteattr

from teamwire.envelope import MessageType


@dataclass(frozen=True)
class Kind:
    """The style of one type of message: its header label, an English gloss, a colour."""

    key: str
    label: str
    gloss: str
    colour: str


KINDS: dict[str, Kind] = {k.key: k for k in (
    Kind("task", "任务发布", "Task", "#4f46e5"),
    Kind("progress", "任务进度输出", "Progress output", "#0e7490"),
    Kind("completion", "任务完成汇报", "Completion output", "#15803d"),
    Kind("ask", "提问", "Ask", "#c2410c"),
    Kind("answer", "回答", "Answer", "#a21caf"),
    Kind("message", "消息", "Message", "#1d4ed8"),
    Kind("other", "", "Other", "#64748b"),
)}
"""Every kind by key; a kind not listed here draws as ``other``."""

_KIND_OF_TYPE = {MessageType.TASK: "task", MessageType.PROGRESS: "progress",
                 MessageType.COMPLETION: "completion", MessageType.ASK: "ask",
                 MessageType.ANSWER: "answer", MessageType.MESSAGE: "message"}

HOWS = {"new turn": "starts a turn", "inline": "delivered during a turn",
        "tool result": "returned as a tool result"}
"""How a message can arrive, each drawn with its own line: solid, dashed, dotted."""


def kind_of(mtype: MessageType | None) -> str:
    """The kind key of a message type (``other`` for None)."""
    return "other" if mtype is None else _KIND_OF_TYPE[mtype]


@dataclass(frozen=True)
class Geometry:
    """Sizes in CSS pixels, shared by the static drawing and the interactive page."""

    gutter: int = 72
    """Left margin, where row numbers and order notes go."""
    header: int = 58
    lane: int = 270
    row: int = 58
    card: int = 46
    """Height of a message card; the rest of a row is air between cards."""

    def centre(self, lane: int) -> float:
        """The x of lane ``lane``'s lifeline."""
        return self.gutter + lane * self.lane + self.lane / 2

    def top(self, row: int) -> float:
        """The y of the top of row ``row``."""
        return self.header + 10 + row * self.row

    def middle(self, row: int) -> float:
        """The y of the middle of row ``row``."""
        return self.top(row) + self.row / 2

    @property
    def card_width(self) -> float:
        return self.lane - 40

    def as_dict(self) -> dict[str, int]:
        """The sizes by name, for the page's script."""
        return {"gutter": self.gutter, "header": self.header, "lane": self.lane,
                "row": self.row, "card": self.card}


@dataclass(frozen=True)
class Lane:
    """One participant: an agent, a router, a model endpoint."""

    key: str
    title: str
    subtitle: str = ""


@dataclass(frozen=True)
class Arrow:
    """A message from one lane to another (or to itself).

    ``start`` and ``end`` are rows; an arrow without rows takes the next free row, and one
    whose ``end`` is None arrives on its ``start`` row (a classic sequence diagram).
    """

    source: str
    target: str
    label: str = ""
    kind: str = "other"
    how: str = ""
    """One of ``HOWS`` or empty."""
    start: int | None = None
    end: int | None = None
    against: bool = False
    """Drawn against the order (the transcripts contradict each other)."""


@dataclass(frozen=True)
class Card:
    """A message shown in its lane at a row: a type label, a short line of text."""

    lane: str
    row: int
    title: str
    text: str = ""
    kind: str = "other"
    severity: str = ""
    """The worst severity of the findings about the message (error, warning, info)."""


@dataclass(frozen=True)
class Span:
    """A turn (an activation): lane ``lane`` is busy from row ``first`` to row ``last``."""

    lane: str
    first: int
    last: int


@dataclass(frozen=True)
class Gap:
    """A note before row ``row``: its order against the row above is not known."""

    row: int
    text: str = "order unknown"


@dataclass
class Diagram:
    """Everything one drawing holds."""

    lanes: list[Lane]
    arrows: list[Arrow] = field(default_factory=list)
    cards: list[Card] = field(default_factory=list)
    spans: list[Span] = field(default_factory=list)
    gaps: list[Gap] = field(default_factory=list)
    title: str = ""


def stylesheet() -> str:
    """The CSS of every drawing: kinds by class ``tws-k-KEY``, ways of arrival by class
    ``tws-how-…``; the page and the static SVG both carry it."""
    rules = [f".tws-k-{k.key}{{--tws-k:{k.colour}}}" for k in KINDS.values()]
    rules += [
        ".tws-lane-head{fill:#f8fafc;stroke:#cbd5e1}",
        ".tws-lane-title{font:600 13px system-ui,'Noto Sans CJK SC',sans-serif;fill:#0f172a}",
        ".tws-lane-sub{font:11px system-ui,'Noto Sans CJK SC',sans-serif;fill:#64748b}",
        ".tws-life{stroke:#cbd5e1;stroke-dasharray:3 4}",
        ".tws-span{fill:#cbd5e1;opacity:.75}",
        ".tws-arrow{fill:none;stroke:var(--tws-k);stroke-width:1.7}",
        ".tws-how-inline{stroke-dasharray:7 4}",
        ".tws-how-tool-result{stroke-dasharray:2 3}",
        ".tws-against{stroke:#dc2626;stroke-width:2.2}",
        ".tws-label{font:12px system-ui,'Noto Sans CJK SC',sans-serif;fill:#0f172a}",
        ".tws-small{font:10.5px system-ui,'Noto Sans CJK SC',sans-serif;fill:#64748b}",
        ".tws-card{fill:#fff;stroke:var(--tws-k);stroke-width:1.2}",
        ".tws-card-bar{fill:var(--tws-k)}",
        ".tws-card-title{font:600 11.5px system-ui,'Noto Sans CJK SC',sans-serif;"
        "fill:var(--tws-k)}",
        ".tws-gap path{fill:none;stroke:#94a3b8;stroke-width:1.5}",
        ".tws-gap-text{font:italic 10px system-ui,sans-serif;fill:#64748b;stroke:none}",
        ".tws-sev-error{fill:#dc2626}.tws-sev-warning{fill:#d97706}.tws-sev-info{fill:#2563eb}",
    ]
    return "\n".join(rules)


IDS = "tws"
"""The prefix of the ids a drawing defines, unless it is given its own."""

_IDS = re.compile(r"[A-Za-z][A-Za-z0-9_-]*")


def marker_defs(ids: str = IDS) -> str:
    """SVG ``<defs>`` with one arrowhead per kind (``url(#IDS-head-KEY)``). Drawings that
    share a page each take their own ``ids``, so that no id is defined twice."""
    if not _IDS.fullmatch(ids):
        raise ValueError(f"{ids!r} cannot begin an id: a letter, then letters, digits, - or _")
    heads = "".join(
        f'<marker id="{ids}-head-{k.key}" viewBox="0 0 10 10" refX="9" refY="5" '
        f'markerWidth="7" markerHeight="7" orient="auto-start-reverse">'
        f'<path d="M0,0L10,5L0,10z" fill="{k.colour}"/></marker>' for k in KINDS.values())
    return f"<defs>{heads}</defs>"


def kind_key(kind: str) -> str:
    """``kind`` if it is a known kind, else ``other``."""
    return kind if kind in KINDS else "other"


def how_class(how: str) -> str:
    """The class of a way of arrival (``tws-how-inline``), or empty."""
    return f"tws-how-{how.replace(' ', '-')}" if how in HOWS else ""


def arrow_path(geometry: Geometry, source: int, start: int, target: int, end: int,
               card_source: bool, card_target: bool) -> str:
    """The SVG path of an arrow from lane ``source`` at row ``start`` to lane ``target`` at
    row ``end``, leaving and reaching the side of a card where there is one."""
    y1, y2 = geometry.middle(start), geometry.middle(end)
    half = geometry.card_width / 2
    if source == target:
        x = geometry.centre(source) + (half if card_source or card_target else 0)
        reach = 28 + 6 * min(abs(end - start), 8)
        return f"M{x:.1f},{y1:.1f}C{x + reach:.1f},{y1:.1f} {x + reach:.1f},{y2:.1f} " \
               f"{x + 2:.1f},{y2:.1f}"
    direction = 1 if target > source else -1
    x1 = geometry.centre(source) + direction * (half if card_source else 0)
    x2 = geometry.centre(target) - direction * (half + 2 if card_target else 2)
    if start == end and not (card_source or card_target):
        return f"M{x1:.1f},{y1:.1f}L{x2:.1f},{y2:.1f}"
    bend = max(24.0, abs(x2 - x1) / 2.5)
    return (f"M{x1:.1f},{y1:.1f}C{x1 + direction * bend:.1f},{y1:.1f} "
            f"{x2 - direction * bend:.1f},{y2:.1f} {x2:.1f},{y2:.1f}")


def clip(text: str, width: float, size: float = 12) -> str:
    """``text`` on one line, cut with an ellipsis to about ``width`` pixels at font ``size``
    (wide characters count double)."""
    line = " ".join(text.split())
    used, out = 0.0, list[str]()
    for char in line:
        step = size * (1.0 if ord(char) > 0x2E80 else 0.56)
        if used + step > width:
            return "".join(out).rstrip() + "…"
        used += step
        out.append(char)
    return "".join(out)


def brackets(rows: Iterable[int]) -> list[tuple[int, int]]:
    """Runs of rows whose order against the row above is unknown, as (first, last) rows
    of one bracket: from the row above the run to its last row."""
    runs: list[tuple[int, int]] = []
    for row in sorted(set(rows)):
        if row < 1:
            continue
        if runs and runs[-1][1] == row - 1:
            runs[-1] = (runs[-1][0], row)
        else:
            runs.append((row - 1, row))
    return runs


def _bracket(g: Geometry, first: int, last: int) -> str:
    x = g.gutter - 16
    y1, y2 = g.middle(first) - 8, g.middle(last) + 8
    middle = (y1 + y2) / 2
    return (f'<g class="tws-gap"><title>The order of these messages across lanes is not '
            f'known from the transcripts</title>'
            f'<path d="M{x + 6},{y1:.1f}H{x}V{y2:.1f}H{x + 6}"/>'
            f'<text class="tws-gap-text" transform="translate({x - 5},{middle:.1f}) rotate(-90)" '
            f'text-anchor="middle">order unknown</text></g>')


def render_svg(lanes: Sequence[Lane] | Diagram, arrows: Iterable[Arrow] = (), *,
               cards: Iterable[Card] = (), spans: Iterable[Span] = (),
               gaps: Iterable[Gap] = (), title: str = "",
               geometry: Geometry | None = None, ids: str = IDS) -> str:
    """One self-contained SVG of lanes and arrows (or of a whole ``Diagram``).

    Arrows without rows take one row each, in the order given; a certification report
    draws a run by passing its participants as lanes and its messages as arrows. The only
    ids it defines are its arrowheads', prefixed ``ids``: several drawings on one page each
    need their own. Their ``<style>`` is the same ``stylesheet()`` every time, all of it
    under ``tws-`` classes, so repeating it on one page changes nothing.
    """
    if isinstance(lanes, Diagram):
        diagram = lanes
    else:
        diagram = Diagram(list(lanes), list(arrows), list(cards), list(spans), list(gaps), title)
    g = geometry or Geometry()
    where = {lane.key: k for k, lane in enumerate(diagram.lanes)}
    placed: list[tuple[Arrow, int, int]] = []
    next_row = 0
    for arrow in diagram.arrows:
        if arrow.source not in where or arrow.target not in where:
            raise ValueError(f"arrow {arrow.label!r} names a lane that is not drawn")
        start = next_row if arrow.start is None else arrow.start
        end = start if arrow.end is None else arrow.end
        next_row = max(next_row, start, end) + 1
        placed.append((arrow, start, end))
    card_at = {(where[c.lane], c.row) for c in diagram.cards if c.lane in where}
    rows = max([next_row, *(c.row + 1 for c in diagram.cards),
                *(s.last + 1 for s in diagram.spans)])
    width = g.gutter + g.lane * len(diagram.lanes) + 16
    height = g.top(rows) + 12
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" class="tws" width="{width}" '
           f'height="{height:.0f}" viewBox="0 0 {width} {height:.0f}" role="img" '
           f'aria-label={quoteattr(diagram.title or "message sequence")}>']
    if diagram.title:
        out.append(f"<title>{escape(diagram.title)}</title>")
    out.append(f"<style>{stylesheet()}</style>{marker_defs(ids)}")
    for k, lane in enumerate(diagram.lanes):
        x = g.centre(k)
        out.append(f'<line class="tws-life" x1="{x}" y1="{g.header}" x2="{x}" y2="{height - 6:.0f}"/>')
        out.append(f'<rect class="tws-lane-head" x="{x - g.lane / 2 + 8}" y="6" '
                   f'width="{g.lane - 16}" height="{g.header - 12}" rx="8"/>')
        out.append(f'<text class="tws-lane-title" x="{x}" y="{26 if lane.subtitle else 33}" '
                   f'text-anchor="middle">{escape(clip(lane.title, g.lane - 28, 13))}</text>')
        if lane.subtitle:
            out.append(f'<text class="tws-lane-sub" x="{x}" y="42" text-anchor="middle">'
                       f'{escape(clip(lane.subtitle, g.lane - 28, 11))}</text>')
    for span in diagram.spans:
        if span.lane in where:
            x = g.centre(where[span.lane]) - g.card_width / 2 - 9
            y1, y2 = g.top(span.first) + 4, g.top(span.last) + g.row - 4
            out.append(f'<rect class="tws-span" x="{x:.1f}" y="{y1:.1f}" width="5" '
                       f'height="{y2 - y1:.1f}" rx="2"/>')
    for first, last in brackets(gap.row for gap in diagram.gaps):
        out.append(_bracket(g, first, last))
    for card in diagram.cards:
        if card.lane not in where:
            continue
        key = kind_key(card.kind)
        x = g.centre(where[card.lane]) - g.card_width / 2
        y = g.middle(card.row) - g.card / 2
        # the card's lines may be cut to fit: its title keeps them whole
        whole = escape(" · ".join(t for t in (card.title, card.text) if t))
        out.append(f'<g class="tws-k-{key}"><title>{whole}</title>'
                   f'<rect class="tws-card" x="{x:.1f}" y="{y:.1f}" '
                   f'width="{g.card_width:.1f}" height="{g.card}" rx="7"/>'
                   f'<rect class="tws-card-bar" x="{x:.1f}" y="{y:.1f}" width="4" '
                   f'height="{g.card}" rx="2"/>'
                   f'<text class="tws-card-title" x="{x + 12:.1f}" y="{y + 17:.1f}">'
                   f'{escape(clip(card.title, g.card_width - 36, 11.5))}</text>'
                   f'<text class="tws-label" x="{x + 12:.1f}" y="{y + 35:.1f}">'
                   f'{escape(clip(card.text, g.card_width - 20, 12))}</text>')
        if card.severity in ("error", "warning", "info"):
            out.append(f'<circle class="tws-sev-{card.severity}" cx="{x + g.card_width - 10:.1f}" '
                       f'cy="{y + 12:.1f}" r="5"><title>{card.severity}</title></circle>')
        out.append("</g>")
    for arrow, start, end in placed:
        key = kind_key(arrow.kind)
        source, target = where[arrow.source], where[arrow.target]
        path = arrow_path(g, source, start, target, end, (source, start) in card_at,
                          (target, end) in card_at)
        classes = " ".join(c for c in ("tws-arrow", f"tws-k-{key}", how_class(arrow.how),
                                       "tws-against" if arrow.against else "") if c)
        tip = " · ".join(p for p in (KINDS[key].label, KINDS[key].gloss, arrow.how,
                                     arrow.label) if p)
        out.append(f'<path class="{classes}" d="{path}" marker-end="url(#{ids}-head-{key})">'
                   f"<title>{escape(tip)}</title></path>")
        if arrow.label and (source, start) not in card_at and (target, end) not in card_at:
            x = (g.centre(source) + g.centre(target)) / 2
            y = min(g.middle(start), g.middle(end)) - 6
            span_px = max(abs(g.centre(target) - g.centre(source)) - 20, g.lane - 40)
            text = arrow.label if not arrow.how else f"{arrow.label} ({arrow.how})"
            out.append(f'<text class="tws-label" x="{x:.1f}" y="{y:.1f}" text-anchor="middle">'
                       f"{escape(clip(text, span_px, 12))}</text>")
    out.append("</svg>")
    return "".join(out)


__all__ = ["HOWS", "IDS", "KINDS", "Arrow", "Card", "Diagram", "Gap", "Geometry", "Kind", "Lane",
           "Span", "arrow_path", "clip", "how_class", "kind_key", "kind_of", "marker_defs",
           "render_svg", "stylesheet"]
