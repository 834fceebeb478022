"""The state diagram of the routing core, generated from the transition table.

``edges()`` lists every state change with what causes it; ``layout()`` places the states
(each where ``POSITIONS`` puts it) and the labels of the changes; ``svg()`` draws the result
as one static SVG, with no script and nothing fetched, for the docs site.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from itertools import pairwise
from xml.sax.saxutils import escape

from teamwire.router.states import AgentState, Delivery
from teamwire.router.table import ANSWER_RESOLVES, DELIVERY, ENDS_WITH_PENDING, TRANSITIONS

Edges = dict[tuple[AgentState, AgentState], list[str]]
"""(source, target) → the labels of what causes that state change."""


def edges() -> Edges:
    """Every state change with the labels of what causes it (self-loops left out)."""
    found: Edges = {}

    def add(source: AgentState, target: AgentState, label: str) -> None:
        if source is target:
            return
        labels = found.setdefault((source, target), [])
        if label not in labels:
            labels.append(label)

    for (state, event), outcomes in TRANSITIONS.items():
        for outcome in sorted(outcomes, key=_order):
            add(state, outcome, event.__name__)
    for state, (delivery, after) in DELIVERY.items():
        if delivery is Delivery.NEW_TURN:
            add(state, after, "message arrives")
    waiting, resumed = ANSWER_RESOLVES
    add(waiting, resumed, "answer / timeout / target terminated")
    for state in sorted(ENDS_WITH_PENDING[0], key=_order):
        add(state, ENDS_WITH_PENDING[1], "pending messages")
    return dict(sorted(found.items(), key=lambda item: (_order(item[0][0]), _order(item[0][1]))))


def _order(state: AgentState) -> int:
    return list(AgentState).index(state)


# -- layout ---------------------------------------------------------------------------------

START = AgentState.ABSENT
"""The state drawn as the start dot: no agent of that name exists yet."""

FINAL = AgentState.TERMINATED
"""The state drawn with a double border: nothing leaves it."""

POSITIONS: dict[AgentState, tuple[float, float, float]] = {
    AgentState.ABSENT: (70, 36, 18),
    AgentState.IDLE: (70, 130, 110),
    AgentState.RUNNING: (340, 130, 110),
    AgentState.WAITING: (640, 130, 110),
    AgentState.CLOSING: (180, 410, 116),
    AgentState.COMPLETED: (520, 410, 110),
    # every state but absent can be terminated: a bar below them all takes each arrow
    # straight down
    AgentState.TERMINATED: (360, 600, 690),
}
"""Each state's centre (x, y) and width, in pixels of the drawing. A state missing here
cannot be drawn: ``layout`` raises rather than leave it out."""

NOTES: dict[AgentState, str] = {AgentState.CLOSING: "reported as running"}
"""A second line under a state's name."""

WIDTH, HEIGHT = 720, 640
BOX_HEIGHT = 46.0
CHAR = 7.0
"""Estimated width of one character of a 12 px label; generous, so real text fits its box."""
LINE = 15.0
PAD = 4.0
PAIR_GAP = 6.0
"""How far apart the two arrows of a pair of opposite state changes run."""
BOW = 16.0
"""How far the two arrows of such a pair bow out at their middle."""
AIR = 8.0
"""How close a label may come to a state, another label or another state change's arrow."""
WRAP = 20
"""Longest label line, in characters: a longer label is broken between words."""
_FRACTIONS = (0.5, 0.38, 0.62, 0.28, 0.72, 0.2, 0.8)
"""Where along its arrow a label may sit, tried in this order."""


@dataclass(frozen=True)
class Box:
    """An axis-aligned rectangle by its centre and size."""

    x: float
    y: float
    width: float
    height: float

    @property
    def left(self) -> float:
        return self.x - self.width / 2

    @property
    def right(self) -> float:
        return self.x + self.width / 2

    @property
    def top(self) -> float:
        return self.y - self.height / 2

    @property
    def bottom(self) -> float:
        return self.y + self.height / 2

    def overlaps(self, other: Box, margin: float = 0.0) -> bool:
        """Whether the two rectangles share any point, ``margin`` pixels of air counted."""
        return not (self.right + margin <= other.left or other.right + margin <= self.left
                    or self.bottom + margin <= other.top or other.bottom + margin <= self.top)

    def grown(self, margin: float) -> Box:
        """This rectangle with ``margin`` more on every side."""
        return Box(self.x, self.y, self.width + 2 * margin, self.height + 2 * margin)

    def crossed_by(self, a: tuple[float, float], b: tuple[float, float]) -> bool:
        """Whether the segment from ``a`` to ``b`` passes through this rectangle."""
        t0, t1 = 0.0, 1.0
        dx, dy = b[0] - a[0], b[1] - a[1]
        for delta, low, high, start in ((dx, self.left, self.right, a[0]),
                                         (dy, self.top, self.bottom, a[1])):
            if abs(delta) < 1e-9:
                if not low < start < high:
                    return False
                continue
            u0, u1 = sorted(((low - start) / delta, (high - start) / delta))
            t0, t1 = max(t0, u0), min(t1, u1)
            if t0 >= t1:
                return False
        return True


Point = tuple[float, float]


@dataclass(frozen=True)
class DrawnEdge:
    """One state change as drawn: its arrow (a straight line, or a bow when the opposite
    change is drawn too) and its label's box."""

    source: AgentState
    target: AgentState
    labels: tuple[str, ...]
    start: Point
    end: Point
    bend: Point | None
    """The control point of a bowed arrow (a quadratic curve), None for a straight one."""
    label: Box

    def points(self, steps: int = 16) -> list[Point]:
        """The arrow as a polyline, for telling what it passes through."""
        if self.bend is None:
            return [self.start, self.end]
        return [_bezier(self.start, self.bend, self.end, k / steps) for k in range(steps + 1)]

    def path(self) -> str:
        """The SVG path data of the arrow."""
        (x1, y1), (x2, y2) = self.start, self.end
        if self.bend is None:
            return f"M{x1:.1f},{y1:.1f}L{x2:.1f},{y2:.1f}"
        cx, cy = self.bend
        return f"M{x1:.1f},{y1:.1f}Q{cx:.1f},{cy:.1f} {x2:.1f},{y2:.1f}"


@dataclass(frozen=True)
class Chart:
    """Where everything of the state diagram goes."""

    width: float
    height: float
    states: dict[AgentState, Box]
    edges: list[DrawnEdge]


def _bezier(p: Point, c: Point, q: Point, t: float) -> Point:
    u = 1 - t
    return (u * u * p[0] + 2 * u * t * c[0] + t * t * q[0],
            u * u * p[1] + 2 * u * t * c[1] + t * t * q[1])


def _exit(box: Box, point: Point, direction: Point) -> float:
    """How far from ``point`` (inside ``box``) along the unit ``direction`` the box ends."""
    found = math.inf
    for delta, low, high, start in ((direction[0], box.left, box.right, point[0]),
                                    (direction[1], box.top, box.bottom, point[1])):
        if delta > 1e-9:
            found = min(found, (high - start) / delta)
        elif delta < -1e-9:
            found = min(found, (low - start) / delta)
    return max(found, 0.0)


def _normal(d: Point) -> Point:
    """The unit normal on the right of travel (screen coordinates): opposite arrows get
    opposite normals, so the two bows of a pair draw apart."""
    return (-d[1], d[0])


def _arrow(a: Box, b: Box, paired: bool) -> tuple[Point, Point, Point | None]:
    """The ends of the arrow from box ``a`` to box ``b`` and its bend: straight down (or
    across) where the boxes face each other, else from centre to centre; bowed out to its
    right when the opposite arrow is drawn too."""
    low, high = max(a.left, b.left), min(a.right, b.right)
    if high - low >= 24:
        x = (low + high) / 2
        p, q = (x, a.y), (x, b.y)
    else:
        low, high = max(a.top, b.top), min(a.bottom, b.bottom)
        if high - low >= 24:
            y = (low + high) / 2
            p, q = (a.x, y), (b.x, y)
        else:
            p, q = (a.x, a.y), (b.x, b.y)
    length = math.dist(p, q)
    d = ((q[0] - p[0]) / length, (q[1] - p[1]) / length)
    n = _normal(d)
    shift = PAIR_GAP if paired else 0.0
    p = (p[0] + n[0] * shift, p[1] + n[1] * shift)
    q = (q[0] + n[0] * shift, q[1] + n[1] * shift)
    gap = 3.0
    s, e = _exit(a, p, d) + gap, _exit(b, q, (-d[0], -d[1])) + gap
    start, end = (p[0] + d[0] * s, p[1] + d[1] * s), (q[0] - d[0] * e, q[1] - d[1] * e)
    if not paired:
        return start, end, None
    middle = ((start[0] + end[0]) / 2, (start[1] + end[1]) / 2)
    # a quadratic curve reaches half way to its control point
    return start, end, (middle[0] + n[0] * 2 * BOW, middle[1] + n[1] * 2 * BOW)


def label_lines(labels: tuple[str, ...]) -> list[str]:
    """The lines of a label: one per cause, a long cause broken between words."""
    lines: list[str] = []
    for text in labels:
        line = ""
        for word in text.split():
            if line and len(line) + 1 + len(word) > WRAP:
                lines.append(line)
                line = word
            else:
                line = f"{line} {word}" if line else word
        lines.append(line)
    return lines


def label_size(labels: tuple[str, ...]) -> tuple[float, float]:
    """The width and height of the box of a label."""
    lines = label_lines(labels)
    return (max(len(text) for text in lines) * CHAR + 2 * PAD, len(lines) * LINE + 2 * PAD)


def layout(found: Edges | None = None,
           positions: Mapping[AgentState, tuple[float, float, float]] = POSITIONS) -> Chart:
    """Place every state at its position and every state change's label where it covers no
    state, no other label and no other arrow (the first free spot of ``_FRACTIONS``; the
    middle when none is free). KeyError names a state that has no position, ValueError two
    states drawn on top of each other."""
    found = edges() if found is None else found
    missing = [state.value for state in AgentState if state not in positions]
    if missing:
        raise KeyError(f"no position for state {', '.join(missing)}: add it to POSITIONS")
    states = {state: Box(x, y, width, width if state is START else BOX_HEIGHT)
              for state, (x, y, width) in positions.items()}
    for k, (state, box) in enumerate(states.items()):
        for other, seen in list(states.items())[:k]:
            if box.overlaps(seen):
                raise ValueError(f"states {other.value} and {state.value} overlap: move one "
                                 "in POSITIONS")
    arrows = {pair: _arrow(states[pair[0]], states[pair[1]], (pair[1], pair[0]) in found)
              for pair in found}
    unlabelled = {pair: DrawnEdge(pair[0], pair[1], tuple(labels), *arrows[pair], Box(0, 0, 0, 0))
                  for pair, labels in found.items()}
    lines = {pair: edge.points() for pair, edge in unlabelled.items()}
    placed: list[DrawnEdge] = []
    # the largest labels choose first: the small ones fit in the gaps that are left
    for pair, edge in sorted(unlabelled.items(), key=lambda item: -_area(item[1].labels)):
        others = [points for other, points in lines.items() if other != pair]
        label = _place(edge, (pair[1], pair[0]) in found, list(states.values()), others,
                       [e.label for e in placed])
        placed.append(DrawnEdge(edge.source, edge.target, edge.labels, edge.start, edge.end,
                                edge.bend, label))
    order = list(found)
    return Chart(WIDTH, HEIGHT, states,
                 sorted(placed, key=lambda e: order.index((e.source, e.target))))


def clashes(chart: Chart) -> list[str]:
    """What makes the chart hard to read: a label on a state, on another label or crossed
    by another arrow, an arrow through a state it does not join, or anything off the
    drawing. Empty for a legible chart."""
    found = []
    page = Box(chart.width / 2, chart.height / 2, chart.width, chart.height)
    for k, edge in enumerate(chart.edges):
        name = f"{edge.source.value} → {edge.target.value}"
        box = edge.label
        if not (page.left <= box.left and box.right <= page.right
                and page.top <= box.top and box.bottom <= page.bottom):
            found.append(f"the label of {name} leaves the drawing")
        found += [f"the label of {name} covers {state.value}"
                  for state, other in chart.states.items() if box.overlaps(other)]
        found += [f"the labels of {name} and {o.source.value} → {o.target.value} overlap"
                  for o in chart.edges[k + 1:] if box.overlaps(o.label)]
        found += [f"the arrow {o.source.value} → {o.target.value} crosses the label of {name}"
                  for o in chart.edges if o is not edge and _crosses(box, o.points())]
        found += [f"the arrow {name} passes through {state.value}"
                  for state, other in chart.states.items()
                  if state not in (edge.source, edge.target) and _crosses(other, edge.points())]
    return found


def _area(labels: tuple[str, ...]) -> float:
    width, height = label_size(labels)
    return width * height


def _crosses(box: Box, points: list[Point]) -> bool:
    return any(box.crossed_by(a, b) for a, b in pairwise(points))


def _place(edge: DrawnEdge, paired: bool, boxes: list[Box], arrows: list[list[Point]],
           labels: list[Box]) -> Box:
    """The first spot along the arrow where the label is free; a bowed arrow's label sits on
    the outside of its bow, so that it never hides the opposite arrow."""
    width, height = label_size(edge.labels)
    d = (edge.end[0] - edge.start[0], edge.end[1] - edge.start[1])
    length = math.hypot(*d)
    n = _normal((d[0] / length, d[1] / length))
    # a straight arrow runs through its label; a bowed one keeps it just outside the bow
    push = (abs(n[0]) * width / 2 + abs(n[1]) * height / 2 + 3) if paired else 0.0
    candidates = []
    for fraction in _FRACTIONS:
        if edge.bend is None:
            x, y = (edge.start[0] + d[0] * fraction, edge.start[1] + d[1] * fraction)
        else:
            x, y = _bezier(edge.start, edge.bend, edge.end, fraction)
        candidates.append(Box(x + n[0] * push, y + n[1] * push, width, height))
    own = edge.points()
    for box in candidates:
        if (box.left >= 0 and box.right <= WIDTH and box.top >= 0 and box.bottom <= HEIGHT
                and not (paired and _crosses(box, own))
                and not any(box.overlaps(other, AIR) for other in boxes)
                and not any(box.overlaps(other, AIR) for other in labels)
                and not any(_crosses(box.grown(AIR), points) for points in arrows)):
            return box
    return candidates[0]


# -- drawing ----------------------------------------------------------------------------------

_FONT = "system-ui,-apple-system,'Segoe UI',Roboto,'Noto Sans',sans-serif"
_INK, _LINE_COLOUR, _FILL, _EDGE = "#1e1b4b", "#4f46e5", "#eef2ff", "#475569"


def svg(found: Edges | None = None, *, ident: str = "tw-states") -> str:
    """The state diagram as one self-contained SVG: a box per state (the start dot for
    ``absent``), an arrow per state change with its causes, and a ``<desc>`` that lists every
    change in words. ``ident`` prefixes the one id it defines (its arrowhead)."""
    found = edges() if found is None else found
    chart = layout(found)
    head = f"{ident}-head"
    words = "; ".join(f"{s.value} to {t.value}: {', '.join(labels)}"
                      for (s, t), labels in found.items())
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" class="tw-states" width="{chart.width:.0f}" '
           f'height="{chart.height:.0f}" viewBox="0 0 {chart.width:.0f} {chart.height:.0f}" '
           # a column narrower than the drawing shrinks it rather than scroll it
           'style="max-width:100%;height:auto" '
           f'role="img" aria-label="State diagram of an agent in the routing core">',
           "<title>State diagram of an agent in the routing core</title>",
           f"<desc>{escape('Every state change of the transition table. ' + words)}.</desc>",
           f'<defs><marker id="{head}" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="8" '
           f'markerHeight="8" orient="auto-start-reverse"><path d="M0,0L10,5L0,10z" '
           f'fill="{_EDGE}"/></marker></defs>']
    for edge in chart.edges:
        out.append(f'<path data-from="{edge.source.value}" data-to="{edge.target.value}" '
                   f'd="{edge.path()}" fill="none" stroke="{_EDGE}" stroke-width="1.4" '
                   f'marker-end="url(#{head})"/>')
    for state, box in chart.states.items():
        out.append(_state(state, box))
    for edge in chart.edges:
        out.append(_label(edge))
    out.append("</svg>")
    return "".join(out)


def _state(state: AgentState, box: Box) -> str:
    """One state: the start dot, a final state's double box, or a plain rounded box."""
    if state is START:
        return (f'<g data-state="{state.value}"><circle cx="{box.x:.1f}" cy="{box.y:.1f}" '
                f'r="{box.width / 2:.1f}" fill="{_INK}"/><text x="{box.right + 6:.1f}" '
                f'y="{box.y + 4:.1f}" font-family="{_FONT}" '
                f'font-size="11" fill="#64748b">{state.value}</text></g>')
    rect = (f'<rect x="{box.left:.1f}" y="{box.top:.1f}" width="{box.width:.1f}" '
            f'height="{box.height:.1f}" rx="10" fill="{_FILL}" stroke="{_LINE_COLOUR}" '
            f'stroke-width="1.6"/>')
    if state is FINAL:
        rect += (f'<rect x="{box.left + 4:.1f}" y="{box.top + 4:.1f}" '
                 f'width="{box.width - 8:.1f}" height="{box.height - 8:.1f}" rx="7" '
                 f'fill="none" stroke="{_LINE_COLOUR}" stroke-width="1"/>')
    note = NOTES.get(state, "")
    name_y = box.y + (-2 if note else 5)
    text = (f'<text x="{box.x:.1f}" y="{name_y:.1f}" text-anchor="middle" '
            f'font-family="{_FONT}" font-size="14" font-weight="600" '
            f'fill="{_INK}">{state.value}</text>')
    if note:
        text += (f'<text x="{box.x:.1f}" y="{box.y + 13:.1f}" text-anchor="middle" '
                 f'font-family="{_FONT}" font-size="10.5" fill="#64748b">{escape(note)}</text>')
    return f'<g data-state="{state.value}">{rect}{text}</g>'


def _label(edge: DrawnEdge) -> str:
    """A label: its causes one per line, on a pale card that the arrow runs under."""
    box = edge.label
    tip = f"{edge.source.value} → {edge.target.value}: {', '.join(edge.labels)}"
    lines = "".join(
        f'<text x="{box.x:.1f}" y="{box.top + PAD + LINE * (k + 1) - 4:.1f}" '
        f'text-anchor="middle">{escape(text)}</text>'
        for k, text in enumerate(label_lines(edge.labels)))
    return (f'<g data-from="{edge.source.value}" data-to="{edge.target.value}" '
            f'font-family="{_FONT}" font-size="12" fill="{_INK}"><title>{escape(tip)}</title>'
            f'<rect x="{box.left:.1f}" y="{box.top:.1f}" width="{box.width:.1f}" '
            f'height="{box.height:.1f}" rx="4" fill="#ffffff" fill-opacity="0.92"/>'
            f"{lines}</g>")


def transitions_table(found: Edges | None = None) -> str:
    """The state changes as a Markdown table, the diagram's text alternative."""
    found = edges() if found is None else found
    rows = ["| from | to | caused by |", "| --- | --- | --- |"]
    for (source, target), labels in found.items():
        rows.append(f"| `{source.value}` | `{target.value}` | "
                    + ", ".join(labels).replace("|", "\\|") + " |")
    return "\n".join(rows)
