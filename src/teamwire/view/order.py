"""One order for the messages of all lanes, from the links between them.

Within a lane, messages come in the order of the conversation. Across lanes, the only
order a transcript proves is that a message is sent before it is delivered: the links the
linter matched. Everything else is unknown, and the drawing says so rather than guess:
``Order.known_after`` tells, for each message, whether the one drawn before it certainly
happened earlier.

Messages are placed as soon as everything they follow is placed (by the length of the
longest chain of messages before them), which keeps a delivery close to its send. Links
that contradict each other (a loop: the bundle was edited or a router reordered) cannot all
point forward; those drawn against the order are listed in ``against``.
"""

from __future__ import annotations

import heapq
from collections.abc import Sequence
from dataclasses import dataclass

Node = tuple[int, int]
"""(lane, index in the lane's conversation)"""


@dataclass
class Order:
    """The placement of every message: its position and what is known about it."""

    sequence: list[Node]
    """Every message once, each lane in conversation order."""
    position: dict[Node, int]
    against: set[int]
    """Indexes of the edges that point backwards in ``sequence`` (a contradiction)."""
    known_after: list[bool]
    """For each position: whether the message before it certainly happened earlier (always
    for the first and within one lane)."""
    clocks: list[list[tuple[int, int]]]
    """For each position, what its message knows of other lanes beyond what the message
    before it in its lane knew: (lane, highest index known to precede it) pairs. With these a
    reader can tell, for any two messages, whether one certainly precedes the other."""
    vectors: list[dict[int, int]]
    """For each position, the highest index of each lane known to precede it (or be it);
    a lane left out is one nothing of which is known to precede it."""

    def precedes(self, first: int, then: int) -> bool:
        """Whether the message at position ``first`` certainly happened before (or is) the
        one at position ``then``."""
        lane, index = self.sequence[first]
        return self.vectors[then].get(lane, -1) >= index


def order(sizes: Sequence[int], edges: Sequence[tuple[Node, Node]]) -> Order:
    """Order lanes of ``sizes`` messages linked by ``edges`` (send → delivery)."""
    incoming: dict[Node, list[int]] = {}
    waiting: dict[Node, int] = {}
    outgoing: dict[Node, list[int]] = {}
    for k, (source, target) in enumerate(edges):
        if not _valid(source, sizes) or not _valid(target, sizes) or source == target:
            continue
        incoming.setdefault(target, []).append(k)
        outgoing.setdefault(source, []).append(k)
        waiting[target] = waiting.get(target, 0) + 1
    level: dict[Node, int] = {}
    ready: list[tuple[int, int, int]] = []
    placed: set[Node] = set()
    sequence: list[Node] = []
    against: set[int] = set()
    heads = [0] * len(sizes)  # next message of each lane not yet placed

    def offer(lane: int) -> None:
        index = heads[lane]
        if index < sizes[lane] and not waiting.get((lane, index)):
            node = (lane, index)
            earlier = level.get((lane, index - 1), -1)
            for k in incoming.get(node, ()):
                earlier = max(earlier, level.get(edges[k][0], -1))
            heapq.heappush(ready, (earlier + 1, lane, index))

    for lane in range(len(sizes)):
        offer(lane)
    total = sum(sizes)
    while len(sequence) < total:
        if not ready:
            # A loop: place the lane head that waits on the fewest messages, drawing the
            # links it waits on against the order.
            lane = min((la for la in range(len(sizes)) if heads[la] < sizes[la]),
                       key=lambda la: (waiting.get((la, heads[la]), 0), la))
            node = (lane, heads[lane])
            for k in incoming.get(node, ()):
                if edges[k][0] not in placed:
                    against.add(k)
            waiting[node] = 0
            offer(lane)
        at, lane, index = heapq.heappop(ready)
        node = (lane, index)
        level[node] = at
        placed.add(node)
        sequence.append(node)
        heads[lane] += 1
        offer(lane)
        for k in outgoing.get(node, ()):
            target = edges[k][1]
            if target in placed:
                continue
            waiting[target] -= 1
            if waiting[target] == 0 and heads[target[0]] == target[1]:
                offer(target[0])
    position = {node: at for at, node in enumerate(sequence)}
    known_after, clocks, vectors = _clocks(len(sizes), sequence, edges, incoming, against)
    return Order(sequence, position, against, known_after, clocks, vectors)


def _valid(node: Node, sizes: Sequence[int]) -> bool:
    return 0 <= node[0] < len(sizes) and 0 <= node[1] < sizes[node[0]]


def _clocks(lanes: int, sequence: list[Node], edges: Sequence[tuple[Node, Node]],
            incoming: dict[Node, list[int]],
            against: set[int]) -> tuple[list[bool], list[list[tuple[int, int]]],
                                        list[dict[int, int]]]:
    """Vector clocks along ``sequence``: entry m of a message's clock is the highest index
    of lane m known to precede it (or be it); lanes it knows nothing of are left out, so a
    session of many agents that each hear from few stays small."""
    clock: dict[Node, dict[int, int]] = {}
    last: list[dict[int, int]] = [{} for _ in range(lanes)]
    known_after: list[bool] = []
    deltas: list[list[tuple[int, int]]] = []
    vectors: list[dict[int, int]] = []
    previous: Node | None = None
    for lane, index in sequence:
        mine = dict(last[lane])
        mine[lane] = index
        changed: dict[int, int] = {}
        for k in incoming.get((lane, index), ()):
            if k in against:
                continue
            for m, v in clock[edges[k][0]].items():
                if v > mine.get(m, -1):
                    mine[m] = changed[m] = v
        clock[(lane, index)] = last[lane] = mine
        vectors.append(mine)
        deltas.append(sorted((m, v) for m, v in changed.items() if m != lane))
        known_after.append(previous is None or mine.get(previous[0], -1) >= previous[1])
        previous = (lane, index)
    return known_after, deltas, vectors
