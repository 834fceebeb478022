"""mkdocs hook: pictures drawn while the site is built, as inline SVG: no script runs and
nothing is fetched when a page is read.

A page asks for one with a marker on a line of its own:

- ``<!-- teamwire-figure: states -->``: the routing core's state diagram
  (``teamwire.router.diagram``), with the same state changes as a table beside it;
- ``<!-- teamwire-figure: scenario NAME -->``: the message sequence of the scenario vector
  ``conformance/scenarios/NAME.json`` as the reference router plays it, in this process and
  on virtual time, drawn as the HTML certification report draws a run.

A marker that names no figure, an unknown scenario, or a run that does not pass fails the
build: a page never shows an empty or a wrong picture.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from mkdocs.exceptions import PluginError
from mkdocs.structure.files import Files

ROOT = Path(__file__).resolve().parents[2]
SCENARIOS = ROOT / "conformance" / "scenarios"
MARKER = re.compile(r"<!-- teamwire-figure: *(?P<what>.*?) *-->")
_NAME = re.compile(r"[a-z0-9][a-z0-9-]*")
COLUMN = 688
"""The width of mkdocs-material's text column on a desktop, in CSS pixels."""

_played: dict[tuple[str, str], Any] = {}
"""(scenario name, vector text) → its run's Diagram: a page that shows a scenario twice, or
a rebuild of ``mkdocs serve``, plays it once; an edited vector is played again."""


def _states() -> str:
    from teamwire.router.diagram import svg, transitions_table

    table = "\n".join("    " + line for line in transitions_table().splitlines())
    return (f'<div class="tw-figure tw-figure-states">{svg()}</div>\n\n'
            '??? info "The same state changes as a table"\n\n' + table + "\n")


def scenario_diagram(name: str) -> Any:
    """The Diagram of scenario ``name`` as the reference router plays it; PluginError when
    there is no such scenario or the run does not pass every check."""
    from teamwire.cli.run_cmd import CAPABILITIES
    from teamwire.conformance.capabilities import capabilities_from_json
    from teamwire.conformance.checks import check_run
    from teamwire.conformance.inprocess import InProcessRouter, reference_router
    from teamwire.conformance.report import ScenarioResult
    from teamwire.conformance.report_html import run_diagram
    from teamwire.conformance.runner import play
    from teamwire.conformance.scenario import ScenarioError, scenario_from_json

    path = SCENARIOS / f"{name}.json"
    if not _NAME.fullmatch(name) or not path.is_file():
        known = ", ".join(sorted(p.stem for p in SCENARIOS.glob("*.json")))
        raise PluginError(f"teamwire-figure: no scenario {name!r} in {SCENARIOS} "
                          f"(there are: {known})")
    text = path.read_text(encoding="utf-8")
    if (name, text) in _played:
        return _played[(name, text)]
    try:
        scenario = scenario_from_json(json.loads(text), str(path))
    except (ValueError, ScenarioError) as exc:
        raise PluginError(f"teamwire-figure: {path.name}: {exc}") from None
    run = play(scenario, InProcessRouter(scenario, reference_router))
    result = ScenarioResult(run, check_run(run, capabilities_from_json(CAPABILITIES)))
    if not result.passed:
        failed = "; ".join(f"{v.check}: {v.reason}" for v in result.new_failures) \
            or "; ".join(run.problems) or "not run"
        raise PluginError(f"teamwire-figure: the reference router does not pass scenario "
                          f"{name}, so it is not drawn: {failed}")
    diagram = run_diagram(run)
    _played[(name, text)] = diagram
    return diagram


def _scenario(name: str, number: int, page: str) -> str:
    from teamwire.view.sequence import Geometry, render_svg

    diagram = scenario_diagram(name)
    # lanes as wide as the report's where they fit the theme's text column (688 px wide on
    # a desktop), narrower where three agents would not; a run has no order notes, so the
    # left margin they need can go
    gutter = 24
    lane = min(Geometry().lane, (COLUMN - gutter - 16) // max(len(diagram.lanes), 1))
    svg = render_svg(diagram, geometry=Geometry(gutter=gutter, lane=lane), ids=f"twf{number}")
    catalog = "../" * page.count("/") + "scenarios.md"
    return (f'<div class="tw-figure tw-figure-scenario" data-scenario="{name}">{svg}</div>\n\n'
            f"*Scenario [`{name}`]({catalog}#{name}), as the reference router played it "
            "while this site was built.*\n")


def render_markers(markdown: str, page: str = "index.md") -> str:
    """``markdown`` of the page ``page`` (its path in docs/) with every figure marker
    replaced by its figure."""
    count = 0

    def figure(match: re.Match[str]) -> str:
        nonlocal count
        count += 1
        what = match.group("what").split()
        if what == ["states"]:
            return _states()
        if len(what) == 2 and what[0] == "scenario":
            return _scenario(what[1], count, page)
        raise PluginError(f"teamwire-figure in {page}: "
                          f"{match.group('what')!r} names no figure (write 'states' or "
                          "'scenario NAME')")

    return MARKER.sub(figure, markdown)


def on_page_markdown(markdown: str, page: Any, config: Any, files: Files) -> str:
    """Draw the figures a page asks for."""
    if "teamwire-figure:" not in markdown:
        return markdown
    return render_markers(markdown, page.file.src_uri)
