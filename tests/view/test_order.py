"""One order for the messages of all lanes (teamwire.view.order), against an oracle that
searches the graph of conversation order and links directly."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from teamwire.view.order import Node, order


@st.composite
def graphs(draw: st.DrawFn) -> tuple[list[int], list[tuple[Node, Node]]]:
    sizes = draw(st.lists(st.integers(0, 6), min_size=1, max_size=4))
    nodes = [(lane, i) for lane, size in enumerate(sizes) for i in range(size)]
    if not nodes:
        return sizes, []
    edges = draw(st.lists(st.tuples(st.sampled_from(nodes), st.sampled_from(nodes)),
                          max_size=8))
    return sizes, edges


def _successors(sizes: list[int], edges: list[tuple[Node, Node]]) -> dict[Node, set[Node]]:
    found: dict[Node, set[Node]] = {}
    for lane, size in enumerate(sizes):
        for i in range(size - 1):
            found.setdefault((lane, i), set()).add((lane, i + 1))
    for source, target in edges:
        if source != target:
            found.setdefault(source, set()).add(target)
    return found


def _reaches(graph: dict[Node, set[Node]], start: Node, goal: Node) -> bool:
    seen, todo = {start}, [start]
    while todo:
        node = todo.pop()
        if node == goal:
            return True
        for after in graph.get(node, ()):
            if after not in seen:
                seen.add(after)
                todo.append(after)
    return False


def _acyclic(graph: dict[Node, set[Node]]) -> bool:
    return not any(_reaches(graph, after, node) for node, afters in graph.items()
                   for after in afters)


@given(graphs())
def test_every_message_is_placed_once_each_lane_in_conversation_order(
        graph: tuple[list[int], list[tuple[Node, Node]]]) -> None:
    sizes, edges = graph
    placed = order(sizes, edges)
    assert sorted(placed.sequence) == sorted((lane, i) for lane, size in enumerate(sizes)
                                             for i in range(size))
    for lane in range(len(sizes)):
        assert [i for la, i in placed.sequence if la == lane] == list(range(sizes[lane]))


@given(graphs())
def test_links_point_forward_unless_they_contradict_each_other(
        graph: tuple[list[int], list[tuple[Node, Node]]]) -> None:
    sizes, edges = graph
    placed = order(sizes, edges)
    for k, (source, target) in enumerate(edges):
        if source == target:
            continue
        forward = placed.position[source] < placed.position[target]
        assert forward != (k in placed.against)
    if _acyclic(_successors(sizes, edges)):
        assert placed.against == set()


@given(graphs())
def test_known_order_is_exactly_what_the_links_prove(
        graph: tuple[list[int], list[tuple[Node, Node]]]) -> None:
    sizes, edges = graph
    placed = order(sizes, edges)
    kept = [e for k, e in enumerate(edges) if k not in placed.against]
    proof = _successors(sizes, kept)
    n = len(placed.sequence)
    for a in range(n):
        for b in range(a + 1, n):
            assert placed.precedes(a, b) == _reaches(proof, placed.sequence[a],
                                                      placed.sequence[b])
    for at in range(1, n):
        assert placed.known_after[at] == placed.precedes(at - 1, at)


def test_two_lanes_without_links_have_no_known_order() -> None:
    placed = order([2, 1], [])
    assert placed.known_after[0]
    crossings = [at for at in range(1, 3)
                 if placed.sequence[at][0] != placed.sequence[at - 1][0]]
    assert crossings and all(not placed.known_after[at] for at in crossings)


def test_a_delivery_is_placed_after_its_send_and_known_to_follow_it() -> None:
    # lane 0 sends with its message 1; lane 1 receives it as its message 2
    placed = order([3, 4], [((0, 1), (1, 2))])
    assert placed.position[(0, 1)] < placed.position[(1, 2)]
    assert placed.precedes(placed.position[(0, 1)], placed.position[(1, 2)])
    assert placed.precedes(placed.position[(0, 0)], placed.position[(1, 3)])
    assert not placed.precedes(placed.position[(0, 2)], placed.position[(1, 3)])


def test_a_loop_is_broken_by_one_link_drawn_against_the_order() -> None:
    placed = order([2, 2], [((0, 1), (1, 0)), ((1, 1), (0, 0))])
    assert len(placed.against) == 1
