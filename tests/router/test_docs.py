"""The docs' state diagram is drawn from the table, legibly; cited requirement ids exist."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from teamwire.router.diagram import POSITIONS, clashes, edges, label_lines, layout, svg
from teamwire.router.states import AgentState
from teamwire.router.table import TRANSITIONS

ROOT = Path(__file__).resolve().parents[2]
SVG = "{http://www.w3.org/2000/svg}"


def _drawn(chart_svg: str) -> dict[tuple[str, str], tuple[list[str], list[str]]]:
    """(from, to) → the label lines and the tooltip of each state change the SVG draws."""
    root = ET.fromstring(chart_svg)
    arrows = [(p.get("data-from"), p.get("data-to")) for p in root.iter(f"{SVG}path")
              if p.get("data-from")]
    assert len(arrows) == len(set(arrows)), "a state change drawn twice"
    drawn = {}
    for group in root.iter(f"{SVG}g"):
        if group.get("data-from"):
            key = (group.get("data-from", ""), group.get("data-to", ""))
            assert key in arrows, f"a label without its arrow: {key}"
            drawn[key] = ([t.text or "" for t in group.iter(f"{SVG}text")],
                          [t.text or "" for t in group.iter(f"{SVG}title")])
    assert set(drawn) == set(arrows)
    return drawn


def test_the_docs_draw_the_diagram_from_the_table_at_build_time() -> None:
    text = (ROOT / "docs" / "router.md").read_text(encoding="utf-8")
    assert text.count("<!-- teamwire-figure: states -->") == 1
    assert "mermaid" not in text and "states:begin" not in text
    assert "mermaid" not in (ROOT / "mkdocs.yml").read_text(encoding="utf-8")


def test_the_svg_draws_exactly_the_table_s_state_changes_with_their_labels() -> None:
    drawn = _drawn(svg())
    table = edges()
    assert set(drawn) == {(s.value, t.value) for s, t in table}
    for (source, target), labels in table.items():
        lines, titles = drawn[(source.value, target.value)]
        assert lines == label_lines(tuple(labels))
        assert " ".join(lines) == " ".join(" ".join(label.split()) for label in labels)
        assert titles == [f"{source.value} → {target.value}: {', '.join(labels)}"]


def test_diagram_names_every_state_change() -> None:
    drawn = _drawn(svg())
    for (state, event), outcomes in TRANSITIONS.items():
        for outcome in outcomes - {state}:
            assert event.__name__ in drawn[(state.value, outcome.value)][0]


def test_the_diagram_is_legible_and_every_state_is_drawn() -> None:
    chart = layout()
    assert clashes(chart) == []
    assert set(chart.states) == set(AgentState)
    root = ET.fromstring(svg())
    assert {g.get("data-state") for g in root.iter(f"{SVG}g") if g.get("data-state")} \
        == {state.value for state in AgentState}


def test_a_crowded_diagram_clashes() -> None:
    """The legibility check can fail: waiting moved up to running leaves their labels no room,
    and states on top of each other are refused."""
    crowded = dict(POSITIONS)
    x, y, width = POSITIONS[AgentState.RUNNING]
    crowded[AgentState.WAITING] = (x + width + 20, y, width)
    assert any("running → waiting" in clash or "waiting → running" in clash
               for clash in clashes(layout(positions=crowded)))
    crowded[AgentState.WAITING] = (x + 10, y, width)
    with pytest.raises(ValueError, match="overlap"):
        layout(positions=crowded)


def test_a_state_without_a_position_is_refused_not_left_out() -> None:
    partial: dict[AgentState, tuple[float, float, float]] = {
        s: p for s, p in POSITIONS.items() if s is not AgentState.CLOSING}
    with pytest.raises(KeyError, match="closing"):
        layout(positions=partial)


def test_cited_requirement_ids_exist() -> None:
    known = {r["id"] for r in json.loads(
        (ROOT / "spec" / "requirements.json").read_text(encoding="utf-8"))["requirements"]}
    cited = set()
    for path in Path(__file__).parent.glob("*.py"):
        cited |= set(re.findall(r"TW-[A-Z]+-\d{3}", path.read_text(encoding="utf-8")))
    assert cited and cited <= known, sorted(cited - known)
