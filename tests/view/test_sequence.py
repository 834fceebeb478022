"""The drawing API that certification reports and the docs site call:
``teamwire.view.sequence.render_svg`` with lanes and arrows."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from teamwire.view.sequence import Arrow, Card, Gap, Geometry, Lane, Span, arrow_path, clip, render_svg

NS = {"svg": "http://www.w3.org/2000/svg"}


def _tree(svg: str) -> ET.Element:
    return ET.fromstring(svg)  # well-formed XML, or this raises


def test_a_run_drawn_as_lanes_and_arrows_gives_one_arrow_per_message_in_order() -> None:
    lanes = [Lane("harness", "Harness", "plays the models"), Lane("router", "Router under test")]
    arrows = [Arrow("harness", "router", "start", kind="task"),
              Arrow("router", "harness", "model call", kind="ask"),
              Arrow("harness", "router", "reply", kind="answer", how="tool result")]
    root = _tree(render_svg(lanes, arrows, title="run 1"))
    paths = root.findall(".//svg:path[@class]", NS)
    drawn = [p for p in paths if "tws-arrow" in p.get("class", "")]
    assert len(drawn) == 3
    assert ["tws-k-task" in drawn[0].get("class", ""), "tws-k-ask" in drawn[1].get("class", ""),
            "tws-how-tool-result" in drawn[2].get("class", "")] == [True, True, True]
    # one row each, top to bottom: each arrow lies lower than the one before
    heights = [float(p.get("d", "").split(",")[1].split("L")[0]) for p in drawn]
    assert heights == sorted(heights) and len(set(heights)) == 3
    texts = [t.text for t in root.iter("{http://www.w3.org/2000/svg}text")]
    assert {"Harness", "Router under test", "start", "model call"} <= set(texts)
    assert "reply (tool result)" in texts


def test_labels_and_names_are_text_never_markup() -> None:
    hostile = '</style><script>alert(1)</script>&amp;<a href="javascript:x">'
    svg = render_svg([Lane("a", hostile), Lane("b", "B")],
                     [Arrow("a", "b", hostile)], cards=[Card("b", 1, hostile, hostile)],
                     title=hostile)
    root = _tree(svg)
    assert root.find(".//svg:script", NS) is None and root.find(".//svg:a", NS) is None
    assert len(root.findall(".//svg:style", NS)) == 1
    texts = "".join(t.text or "" for t in root.iter())
    assert "<script>alert(1)</script>&amp;" in texts


def test_an_arrow_to_a_lane_not_drawn_is_refused() -> None:
    with pytest.raises(ValueError, match="lane"):
        render_svg([Lane("a", "A")], [Arrow("a", "nowhere", "lost")])


def test_cards_spans_and_order_notes_are_drawn() -> None:
    svg = render_svg([Lane("a", "A"), Lane("b", "B")], [Arrow("a", "b", start=0, end=2)],
                     cards=[Card("a", 0, "Task", "do it", "task", "error"),
                            Card("b", 2, "Task", "doing", "task")],
                     spans=[Span("b", 2, 3)], gaps=[Gap(1), Gap(2)])
    root = _tree(svg)
    assert len(root.findall(".//svg:rect[@class='tws-card']", NS)) == 2
    assert len(root.findall(".//svg:rect[@class='tws-span']", NS)) == 1
    assert len(root.findall(".//svg:g[@class='tws-gap']", NS)) == 1  # rows 1 and 2: one bracket
    assert root.find(".//svg:circle[@class='tws-sev-error']", NS) is not None


def test_an_arrow_between_cards_leaves_and_reaches_their_sides() -> None:
    g = Geometry()
    path = arrow_path(g, 0, 0, 1, 2, True, True)
    start, end = path[1:].split("C")[0], path.rsplit(" ", 1)[1]
    assert float(start.split(",")[0]) == g.centre(0) + g.card_width / 2
    assert float(end.split(",")[0]) == g.centre(1) - g.card_width / 2 - 2
    assert float(end.split(",")[1]) == g.middle(2)


def test_clip_cuts_wide_characters_sooner() -> None:
    assert clip("abc", 100) == "abc"
    assert clip("任务发布" * 10, 50).endswith("…") and len(clip("任务发布" * 10, 50)) <= 6
    assert len(clip("a" * 100, 50)) > len(clip("任" * 100, 50))


def _ids(svg: str) -> list[str]:
    return [node.get("id", "") for node in _tree(svg).iter() if node.get("id")]


def test_drawings_given_their_own_ids_share_no_id_and_point_at_their_own_heads() -> None:
    lanes = [Lane("a", "A"), Lane("b", "B")]
    arrows = [Arrow("a", "b", "go", kind="task"), Arrow("b", "a", "back", kind="answer")]
    first, second = (render_svg(lanes, arrows, ids=ids) for ids in ("fig1", "fig2"))
    assert not set(_ids(first)) & set(_ids(second))
    for svg, ids in ((first, "fig1"), (second, "fig2")):
        defined = set(_ids(svg))
        used = {p.get("marker-end", "")[5:-1] for p in _tree(svg).iter()
                if p.get("marker-end")}
        assert used and used <= defined and all(i.startswith(f"{ids}-head-") for i in used)
    # the view page's script names the heads tws-head-KEY: the default keeps them
    assert "tws-head-task" in _ids(render_svg(lanes, arrows))


@pytest.mark.parametrize("ids", ["", "1fig", 'x" onload="y', "a b"])
def test_ids_that_cannot_begin_an_id_are_refused(ids: str) -> None:
    with pytest.raises(ValueError, match="cannot begin an id"):
        render_svg([Lane("a", "A")], [], ids=ids)


def test_a_card_cut_to_fit_keeps_its_whole_text_in_its_title() -> None:
    text = "2 new messages; never answered (killed) " * 3
    root = _tree(render_svg([Lane("a", "A")], [], cards=[Card("a", 0, "model call 1", text)]))
    shown = [t.text or "" for t in root.iter("{http://www.w3.org/2000/svg}text")]
    assert any(s.endswith("…") for s in shown) and text.strip() not in shown
    titles = [t.text for t in root.iter("{http://www.w3.org/2000/svg}title")]
    assert f"model call 1 · {' '.join(text.split())}" in [" ".join((t or "").split()) for t in titles]
