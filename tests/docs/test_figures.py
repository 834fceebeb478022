"""The docs site's figures (docs/hooks/figures.py): every marker becomes its drawing, made at
build time from the sources; a figure that cannot be drawn right fails the build; several on
one page share no id; the built pages load nothing from elsewhere."""

from __future__ import annotations

import importlib.util
import re
import xml.etree.ElementTree as ET
from pathlib import Path
from types import ModuleType

import pytest
from mkdocs.exceptions import PluginError

from teamwire.router.diagram import edges, label_lines

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
SVG = "{http://www.w3.org/2000/svg}"


def _hook() -> ModuleType:
    spec = importlib.util.spec_from_file_location("teamwire_docs_figures",
                                                  DOCS / "hooks" / "figures.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


figures = _hook()


def _pages_with_markers() -> dict[str, str]:
    pages = {str(p.relative_to(DOCS)): p.read_text(encoding="utf-8")
             for p in sorted(DOCS.rglob("*.md")) if "hooks" not in p.parts}
    return {uri: text for uri, text in pages.items() if figures.MARKER.search(text)}


def _svgs(html: str) -> list[ET.Element]:
    return [ET.fromstring(m) for m in re.findall(r"<svg\b.*?</svg>", html, re.S)]


def test_every_marker_on_the_pages_becomes_its_figure() -> None:
    pages = _pages_with_markers()
    assert {"concepts.md", "router.md"} <= set(pages)
    for uri, text in pages.items():
        wanted = [m.group("what").split() for m in figures.MARKER.finditer(text)]
        out = figures.render_markers(text, uri)
        assert "teamwire-figure" not in out, uri
        drawn = re.findall(r'data-scenario="([^"]+)"', out)
        assert drawn == [w[1] for w in wanted if w[0] == "scenario"], uri
        assert len(_svgs(out)) == len(wanted), uri


def test_the_concepts_page_draws_the_scenarios_it_explains() -> None:
    text = (DOCS / "concepts.md").read_text(encoding="utf-8")
    shown = set(re.findall(r"<!-- teamwire-figure: scenario ([a-z0-9-]+) -->", text))
    assert {"message-to-running-sub-agent", "task-to-idle-sub-agent", "batch-drain",
            "message-during-final-reply", "restart-with-a-queued-message",
            "ask-timeout"} <= shown
    for name in shown:  # every scenario drawn is linked to its entry in the catalog
        assert f"scenarios.md#{name}" in figures.render_markers(
            f"<!-- teamwire-figure: scenario {name} -->", "concepts.md")


def test_a_scenario_figure_is_the_reference_router_s_run() -> None:
    out = figures.render_markers("<!-- teamwire-figure: scenario batch-drain -->")
    (svg,) = _svgs(out)
    texts = [t.text or "" for t in svg.iter(f"{SVG}text")]
    # the Team Leader's two steers reach the running sub-agent inline, in one batch
    assert "msg_tl_001 (inline)" in texts and "msg_tl_002 (inline)" in texts
    assert {"Team Leader", "UI Operator_1"} <= set(texts)


@pytest.mark.parametrize("marker", ["scenario no-such-scenario", "scenario ../../README",
                                    "scenario", "sequence batch-drain", "states extra"])
def test_a_figure_that_cannot_be_drawn_fails_the_build(marker: str) -> None:
    with pytest.raises(PluginError, match="teamwire-figure"):
        figures.render_markers(f"# Page\n\n<!-- teamwire-figure: {marker} -->\n", "x.md")


def test_a_scenario_the_reference_router_fails_is_not_drawn(
        monkeypatch: pytest.MonkeyPatch) -> None:
    import teamwire.conformance.inprocess as inprocess
    from tests.conformance.routers.broken_inprocess import newest_first

    monkeypatch.setattr(inprocess, "reference_router", newest_first)
    monkeypatch.setattr(figures, "_played", {})
    with pytest.raises(PluginError, match="does not pass scenario batch-drain"):
        figures.render_markers("<!-- teamwire-figure: scenario batch-drain -->")


def test_a_scenario_is_played_once_and_again_when_its_vector_changes(
        monkeypatch: pytest.MonkeyPatch) -> None:
    import teamwire.conformance.runner as runner

    plays: list[str] = []
    real = runner.play

    def counted(scenario: object, router: object, **options: object) -> object:
        plays.append(getattr(scenario, "name", ""))
        return real(scenario, router, **options)  # type: ignore[arg-type]

    monkeypatch.setattr(runner, "play", counted)
    monkeypatch.setattr(figures, "_played", {})
    page = "<!-- teamwire-figure: scenario task-to-idle-sub-agent -->\n" * 2
    first = figures.render_markers(page)
    assert figures.render_markers(page).count("<svg") == first.count("<svg") == 2
    assert plays == ["task-to-idle-sub-agent"]


def test_two_diagrams_on_one_page_share_no_id() -> None:
    page = ("<!-- teamwire-figure: states -->\n\n"
            "<!-- teamwire-figure: scenario batch-drain -->\n\n"
            "<!-- teamwire-figure: scenario batch-drain -->\n\n"
            "<!-- teamwire-figure: scenario leader-asks-a-sub-agent -->\n")
    svgs = _svgs(figures.render_markers(page))
    assert len(svgs) == 4
    ids = [node.get("id", "") for svg in svgs for node in svg.iter() if node.get("id")]
    assert len(ids) > 4 and len(ids) == len(set(ids)), sorted(ids)
    for svg in svgs:  # each points only at arrowheads it defines itself
        own = {node.get("id") for node in svg.iter() if node.get("id")}
        used = {n.get("marker-end", "")[5:-1] for n in svg.iter() if n.get("marker-end")}
        assert used and used <= own


def test_the_state_chart_figure_shows_every_state_change_and_its_table() -> None:
    out = figures.render_markers("<!-- teamwire-figure: states -->", "router.md")
    (svg,) = _svgs(out)
    labelled = {(g.get("data-from"), g.get("data-to")): [t.text for t in g.iter(f"{SVG}text")]
                for g in svg.iter(f"{SVG}g") if g.get("data-from")}
    table = edges()
    assert set(labelled) == {(s.value, t.value) for s, t in table}
    for (source, target), labels in table.items():
        assert labelled[(source.value, target.value)] == label_lines(tuple(labels))
        assert f"| `{source.value}` | `{target.value}` | {', '.join(labels)} |" in out


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The site as ``mkdocs build --strict`` makes it."""
    from mkdocs.commands.build import build
    from mkdocs.config import load_config

    out = tmp_path_factory.mktemp("site")
    build(load_config(str(ROOT / "mkdocs.yml"), site_dir=str(out), strict=True))
    return out


def test_the_built_pages_hold_their_figures_and_fetch_nothing(site: Path) -> None:
    for uri, text in _pages_with_markers().items():
        html = (site / uri.removesuffix(".md").removesuffix("index") / "index.html") \
            .read_text(encoding="utf-8")
        assert "teamwire-figure" not in html and "mermaid" not in html
        assert len(_svgs(html.split('<article', 1)[1])) >= len(figures.MARKER.findall(text))
        ids = re.findall(r'\bid="([^"]+)"', html)
        assert len(ids) == len(set(ids)), uri
        # every script and stylesheet is the site's own
        for url in re.findall(r'<(?:script|link)\b[^>]*\b(?:src|href)="([^"]+)"', html):
            assert not re.match(r"(https?:)?//", url) or url.startswith("https://teamwire.dev/"), url
