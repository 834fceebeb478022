"""The HTML certification report: what it says of a run, the run drawn as a sequence, that
nothing a router sends can run in it, and how it looks in a real browser."""

from __future__ import annotations

import re
from pathlib import Path

from teamwire.conformance.checks import Status, Verdict, check_run
from teamwire.conformance.inprocess import InProcessRouter, reference_router
from teamwire.conformance.report import Certification, ScenarioResult
from teamwire.conformance.report_html import _ROLE_TITLES, render_html, run_diagram
from teamwire.conformance.runner import play
from teamwire.conformance.scenario import Scenario, load_scenario
from tests.conformance.routers.broken_inprocess import newest_first

ROOT = Path(__file__).resolve().parents[2]
SCENARIOS = ROOT / "conformance" / "scenarios"


def _scenario(name: str) -> Scenario:
    return load_scenario(SCENARIOS / f"{name}.json")


def _run(name: str, factory: object = reference_router) -> ScenarioResult:
    scenario = _scenario(name)
    run = play(scenario, InProcessRouter(scenario, factory))  # type: ignore[arg-type]
    return ScenarioResult(run, check_run(run))


def test_a_certified_router_gets_a_green_report_with_every_check() -> None:
    result = _run("batch-drain")
    page = render_html(Certification("my-router --fast", "core", [result]))
    assert "certified</span>" in page and "not certified" not in page
    assert "1 passed, 0 failed, 0 skipped" in page
    for verdict in result.verdicts:
        assert f"<td>{verdict.check}</td>" in page
    assert page.count('class="s s-pass"') >= len(result.verdicts)
    assert 'class="differs"' not in page


def test_a_failed_check_shows_expected_beside_received_from_the_first_difference() -> None:
    result = _run("batch-drain", newest_first)
    failed = [v for v in result.verdicts if v.status is Status.FAIL and v.expected]
    assert failed, "the reordering router must fail a comparison"
    page = render_html(Certification("reorders", "core", [result]))
    assert "not certified" in page
    assert "<h4>expected</h4>" in page and "<h4>received</h4>" in page
    # The first messages agree; the two reordered ones differ on both sides.
    section = page[page.index(f"<h4>{failed[0].check}</h4>"):]
    section = section[:section.index("</div></div>")]
    assert section.count('<pre class="differs"') == 4
    assert section.count("<pre title=") >= 2
    # each side shows its own messages, each block titled by its role
    received = section[section.index("<h4>received</h4>"):]
    assert received.count("<pre") == len(failed[0].received)
    for message in failed[0].received:
        assert f'title="{_ROLE_TITLES.get(message["role"], message["role"])}"' in received
    assert "<pre title=\"\">null</pre>" not in section
    assert "<details id=\"batch-drain\" open>" in page  # a failed scenario starts open


def test_the_sequence_has_a_lane_per_agent_and_an_arrow_per_delivered_envelope() -> None:
    run = _run("batch-drain").run
    diagram = run_diagram(run)
    assert diagram.lanes[0].key == "Team Leader"
    assert {lane.key for lane in diagram.lanes} == set(run.scenario.tokens.values())
    # history is append-only, so an agent's last call shows every envelope it was given
    last = {call.agent: call for call in sorted(run.calls, key=lambda c: c.arrived)}
    delivered = sum(
        1 for call in last.values() for m in call.messages
        if m.get("role") in ("user", "tool") and isinstance(m.get("content"), str)
        and m["content"].startswith("来自 "))
    assert len(diagram.arrows) == delivered
    assert {a.how for a in diagram.arrows} <= {"new turn", "inline", "tool result"}
    assert "inline" in {a.how for a in diagram.arrows}  # what batch-drain is about
    assert len(diagram.cards) == len(run.calls)


def test_a_restart_is_drawn() -> None:
    diagram = run_diagram(_run("restart-with-a-queued-message").run)
    assert any(card.title == "router restarted" for card in diagram.cards)


def test_nothing_a_router_sends_can_run_or_load_anything() -> None:
    hostile = '</pre><script>alert(1)</script><a href="javascript:x">x</a></style>&amp;'
    result = _run("batch-drain")
    result.verdicts.append(Verdict("hostile", Status.FAIL, ("TW-CERT-007",), hostile,
                                   [{"role": "user", "content": hostile}],
                                   [{"role": "user", "content": hostile + "!"}]))
    result.run.output = hostile
    result.run.problems.append(hostile)
    page = render_html(Certification(hostile, "core", [result]))
    assert "<script" not in page.lower()
    assert not re.search(r"<a href=\"javascript", page)
    assert page.count("</style>") == 2  # the page's own and the drawing's
    policy = re.search(r'http-equiv="Content-Security-Policy" content="([^"]+)"', page)
    assert policy and policy.group(1).startswith("default-src 'none'")
    assert "unsafe-inline" not in policy.group(1)


def test_the_report_in_a_browser(tmp_path: Path) -> None:
    from tests.browser import chromium, keep_screenshot

    results = [_run("batch-drain", newest_first), _run("leader-asks-a-sub-agent")]
    page = tmp_path / "certify-report.html"
    page.write_text(render_html(Certification("reorders", "core", results)), encoding="utf-8")
    with chromium(1400, 1800) as browser:
        errors: list[str] = []
        browser.get(page.as_uri())
        from selenium.webdriver.common.by import By

        assert browser.find_element(By.CSS_SELECTOR, "header .verdict").text == "not certified"
        svg = browser.find_elements(By.CSS_SELECTOR, "details[open] svg.tws")
        assert svg and svg[0].size["width"] > 300
        assert browser.find_elements(By.CSS_SELECTOR, "details[open] svg path.tws-arrow")
        # styles applied (the policy let the page's own stylesheets in): a failed status is red
        colour = browser.find_element(By.CSS_SELECTOR, "td.s-fail").value_of_css_property("color")
        assert colour == "rgba(185, 28, 28, 1)"
        for entry in browser.get_log("browser"):
            if entry.get("level") == "SEVERE":
                errors.append(entry["message"])
        assert not errors
        shot = tmp_path / "certify-report.png"
        assert browser.save_screenshot(str(shot))
    keep_screenshot(shot)



def test_certify_writes_the_html_report(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from teamwire.cli import main

    out = tmp_path / "report.html"
    result = CliRunner().invoke(main, ["certify", "--in-process", "--scenario",
                                       str(SCENARIOS / "batch-drain.json"), "-f", "html",
                                       "-o", str(out)])
    assert result.exit_code == 0, result.output
    page = out.read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>") and "certified</span>" in page
    assert "<svg" in page


def test_a_report_of_several_runs_defines_each_id_once() -> None:
    results = [_run("batch-drain"), _run("task-to-idle-sub-agent")]
    page = render_html(Certification("my-router", "core", results))
    ids = re.findall(r'\bid="([^"]+)"', page)
    assert len([i for i in ids if "-head-" in i]) >= 2 * 7
    assert len(ids) == len(set(ids)), sorted(i for i in ids if ids.count(i) > 1)


def test_failures_come_first_with_their_requirements_and_skips_say_why() -> None:
    passing = _run("task-to-idle-sub-agent")
    failing = _run("batch-drain", newest_first)
    skipped = ScenarioResult.skip(_scenario("leader-asks-a-sub-agent"),
                                  "the router declares no ask_timeout")
    page = render_html(Certification("reorders", "core", [passing, skipped, failing]))
    assert "1 passed, 1 failed, 1 skipped" in page
    order = re.findall(r'<details id="([^"]+)"', page)
    assert order == ["batch-drain", "task-to-idle-sub-agent", "leader-asks-a-sub-agent"]
    rows = re.findall(r'<tr><td><a href="#([^"]+)">.*?</tr>', page)
    assert rows == order
    failed_row = re.search(r'<tr><td><a href="#batch-drain">.*?</tr>', page)
    assert failed_row is not None
    required = {r for v in failing.verdicts if v.status is Status.FAIL for r in v.requirements}
    assert required and all(r in failed_row.group(0) for r in required)
    failed_count = sum(v.status is Status.FAIL for v in failing.verdicts)
    assert f'<td class="s s-fail">fail</td><td>{len(failing.verdicts)}</td>' \
           f"<td>{failed_count}</td>" in failed_row.group(0)
    pass_row = re.search(r'<tr><td><a href="#task-to-idle-sub-agent">.*?</tr>', page)
    assert pass_row is not None
    assert f'<td class="s s-pass">pass</td><td>{len(passing.verdicts)}</td><td>0</td>' \
           '<td class="req"></td>' in pass_row.group(0)
    skip_row = re.search(r'<tr><td><a href="#leader-asks-a-sub-agent">.*?</tr>', page)
    assert skip_row is not None and "the router declares no ask_timeout" in skip_row.group(0)


def test_every_arrow_has_its_head_with_all_sections_closed_but_one(tmp_path: Path) -> None:
    from tests.browser import chromium, keep_screenshot

    results = [_run("batch-drain", newest_first), _run("task-to-idle-sub-agent"),
               _run("leader-asks-a-sub-agent")]
    page = tmp_path / "certify-report-one-open.html"
    page.write_text(render_html(Certification("reorders", "core", results)), encoding="utf-8")
    with chromium(1400, 1800) as browser:
        browser.get(page.as_uri())
        # The last section open alone: its arrows must not lean on the definitions of a
        # collapsed section before it, which the browser does not draw.
        arrows = browser.execute_script("""
            const all = [...document.querySelectorAll('details')];
            all.forEach((d, i) => { d.open = i === all.length - 1; });
            const open = all[all.length - 1];
            return [...open.querySelectorAll('path.tws-arrow')].map(p => {
              const id = (p.getAttribute('marker-end') || '').replace(/^url\\(#(.*)\\)$/, '$1');
              const head = document.getElementById(id);
              return [id, !!head && head.closest('details') === open,
                      !!head && head.getBoundingClientRect !== undefined];
            });""")
        assert arrows, "the open section draws no arrow"
        assert all(inside for _, inside, _ in arrows), arrows
        shot = tmp_path / "certify-report-one-open.png"
        assert browser.save_screenshot(str(shot))
    keep_screenshot(shot)
