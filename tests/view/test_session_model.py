"""What ``teamwire view`` draws of a session: lanes, how each message arrived, turns, the
linter's links and findings, and clear errors for input it cannot draw."""

from __future__ import annotations

import json

import pytest

from teamwire.envelope import MessageType
from teamwire.validator import LintOptions
from teamwire.view.diagram import findings_by_row, session_diagram
from teamwire.view.session import How, UnusableInput, load_session
from tests.view.helpers import FSE, TL, UIO, demo_bundle, encoded, with_lost_message


def test_lanes_put_the_team_leader_first_whatever_the_bundle_order() -> None:
    bundle = demo_bundle()
    agents = bundle["agents"]
    bundle["agents"] = {UIO: agents[UIO], FSE: agents[FSE], TL: agents[TL]}
    session = load_session(encoded(bundle), "b.json")
    assert [lane.name for lane in session.lanes] == [TL, UIO, FSE]


def test_how_each_message_of_the_ui_operator_arrived() -> None:
    # The demo's UI Operator: its Task starts its first turn; the first Message arrives
    # after a tool result of the same turn (inline); the Answer comes back as the result of
    # its ask_other_agent call; the dark-mode Message arrives after its turn ended.
    session = load_session(encoded(demo_bundle()), "b.json")
    rows = session.lanes[1].rows
    hows = {r.index: r.how for r in rows if r.how is not None and r.role == "user"}
    assert hows == {1: How.NEW_TURN, 6: How.INLINE, 10: How.NEW_TURN}
    answer = next(r for r in rows if r.envelope and r.envelope.mtype is MessageType.ANSWER)
    assert answer.how is How.TOOL_RESULT and answer.role == "tool"
    turns = [(t.first, t.last, t.ended) for t in session.turns if t.lane == 1]
    assert turns == [(1, 9, True), (10, 11, True)]


def test_links_are_the_linters_and_cover_every_delivery_of_the_demo() -> None:
    session = load_session(encoded(demo_bundle()), "b.json")
    delivered = {(lane.name, r.index) for lane in session.lanes for r in lane.rows
                 if r.envelope is not None}
    assert {(link.receiver, link.delivered_at) for link in session.links} == delivered
    assert len(session.links) == 17


def test_a_finding_is_pinned_to_the_message_it_concerns() -> None:
    bundle, sent = with_lost_message(demo_bundle())
    session = load_session(encoded(bundle), "b.json")
    pinned = findings_by_row(session)
    assert (0, sent) in pinned
    assert [f.rule for f in pinned[(0, sent)]] == ["TW505"]


def test_a_lone_conversation_is_one_lane_named_by_its_owner() -> None:
    messages = demo_bundle()["agents"][UIO]["messages"]
    session = load_session(encoded(messages), "ui.json")
    assert [lane.name for lane in session.lanes] == ["sub-agent"]  # its tools tell no more
    named = load_session(encoded(messages), "ui.json", LintOptions(agent=UIO))
    assert [lane.name for lane in named.lanes] == [UIO]
    assert not session.links and not session.bundle
    jsonl = "\n".join(json.dumps(m, ensure_ascii=False) for m in messages).encode()
    lines = load_session(jsonl, "ui.jsonl")
    assert len(lines.lanes[0].rows) == len(messages)


def test_order_unknown_is_marked_where_lanes_meet_without_a_link() -> None:
    diagram = session_diagram(load_session(encoded(demo_bundle()), "b.json"))
    # the three system prompts come first, and nothing orders them against each other
    assert [c.lane for c in diagram.cards if c.row < 3] == ["0", "1", "2"]
    assert {g.row for g in diagram.gaps} >= {1, 2}
    # a Task is delivered after the call that sent it, never marked unknown against it
    task = next(a for a in diagram.arrows if a.kind == "task")
    assert task.start is not None and task.end is not None and task.end > task.start


@pytest.mark.parametrize(("data", "name", "expected"), [
    (b'{"agents": ', "b.json", "b.json:1:12: invalid JSON"),
    (b"\xff[]", "b.json", "b.json:1:1: invalid UTF-8"),
    (b"   ", "b.json", "the input is empty"),
    (b"42", "b.json", "the top level is a number"),
    (b'{"role": "user", "content": "hi"}', "b.json", "the top level is a single message"),
    (b'{"teamwire": "1.0", "agents": []}', "b.json", "a session bundle needs 'agents'"),
    (b'{"role": "user"}\n{"role": ', "c.jsonl", "c.jsonl:2:10: invalid JSON Lines record"),
], ids=["truncated", "not-utf8", "blank", "number", "one-message", "agents-not-object",
        "bad-record"])
def test_input_that_cannot_be_drawn_is_an_error_with_its_position(
        data: bytes, name: str, expected: str) -> None:
    with pytest.raises(UnusableInput) as error:
        load_session(data, name)
    assert expected in str(error.value)
