"""How a certification's levels add up to its verdict (TW-CERT-012, TW-CERT-023,
TW-CERT-024): each level judged on its own, a level claimed only where a scenario of it ran,
every level of the router's profile judged unless a lower one is asked for; and what each
report format says of them."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from teamwire import schemas
from teamwire.cli import main
from teamwire.conformance.astrion_forms import for_profile_astrion
from teamwire.conformance.checks import Status, Verdict
from teamwire.conformance.report import (
    Certification,
    ScenarioResult,
    badge_svg,
    write_markdown,
    write_text,
)
from teamwire.conformance.runner import Run
from teamwire.conformance.scenario import Scenario, load_scenario

ROOT = Path(__file__).resolve().parents[2]
SCENARIOS = ROOT / "conformance" / "scenarios"
FORGETFUL = f"{ROOT / 'tests' / 'conformance' / 'routers' / 'forgetful_inprocess.py'}:forgets"
CORE, DURABLE, ASTRION = "batch-drain", "restart-with-a-queued-message", "astrion-display-names"


def scenario(name: str) -> Scenario:
    return load_scenario(SCENARIOS / f"{name}.json")


def passed(name: str) -> ScenarioResult:
    return ScenarioResult(Run(scenario(name), [], [], []),
                          [Verdict("append-only", Status.PASS, ("TW-CERT-007",))])


def failed(name: str, checks: int = 1) -> ScenarioResult:
    return ScenarioResult(Run(scenario(name), [], [], []),
                          [Verdict(f"call {n}", Status.FAIL, ("TW-DUR-004",), "differs")
                           for n in range(checks)])


def skipped(name: str) -> ScenarioResult:
    return ScenarioResult.skip(scenario(name), "the router declares no such knob")


def levels(certification: Certification) -> list[tuple[str, bool, bool]]:
    return [(v.level, v.certified, v.judged) for v in certification.levels]


def test_a_router_that_fails_level_durable_is_certified_at_core_only() -> None:
    certification = Certification("r", "durable", [passed(CORE), failed(DURABLE, 2)])
    assert levels(certification) == [("core", True, True), ("durable", False, True)]
    assert certification.certified is False
    assert certification.certified_level == "core"
    assert certification.exit_code() == 1
    assert certification.verdict_line() == (
        "certified at level core; level durable: not certified, 2 checks failed in "
        "1 scenario of 1")


def test_a_level_whose_scenarios_were_all_skipped_is_not_claimed() -> None:
    certification = Certification("r", "durable", [passed(CORE), skipped(DURABLE)])
    [core, durable] = certification.levels
    assert core.certified and not durable.certified
    assert (durable.ran, durable.skipped) == (0, 1)
    assert durable.reason == "none of its 1 scenario ran: every one was skipped"
    assert certification.exit_code() == 1
    # a baseline excuses failures, not a level that was never tried
    with_baseline = Certification("r", "durable", [passed(CORE), skipped(DURABLE)],
                                  baseline="baseline.json")
    assert with_baseline.exit_code() == 1


def test_a_failure_below_a_level_denies_it_too() -> None:
    certification = Certification("r", "durable", [failed(CORE), passed(DURABLE)])
    [core, durable] = certification.levels
    assert not core.certified and not durable.certified
    assert durable.reason == "a scenario of level core failed"
    assert certification.certified_level is None
    assert certification.verdict_line() == (
        "not certified at level core: 1 check failed in 1 scenario of 1")


def test_every_level_passed_is_one_certificate() -> None:
    certification = Certification("r", "durable", [passed(CORE), passed(DURABLE)],
                                  requested=False)
    assert certification.certified and certification.exit_code() == 0
    assert certification.certified_level == "durable"
    assert certification.verdict_line() == "certified at level durable: 2 of 2 scenarios passed"


def test_a_router_of_profile_strict_asked_for_astrion_is_certified_at_durable_at_most() -> None:
    certification = Certification("r", "astrion",
                                  [passed(CORE), passed(DURABLE), skipped(ASTRION)])
    assert levels(certification) == [("core", True, True), ("durable", True, True),
                                      ("astrion", False, True)]
    assert "written for profile astrion" in certification.levels[-1].reason
    assert certification.exit_code() == 1
    assert certification.verdict_line().startswith(
        "certified at level durable; level astrion: not certified, none of its 1 scenario ran")


def test_a_router_of_profile_astrion_is_judged_on_every_level() -> None:
    """The core and durable scenarios run against it in astrion's forms (TW-CERT-028):
    every level is judged."""
    astrion_core = ScenarioResult(Run(for_profile_astrion(scenario(CORE)), [], [], []),
                                  [Verdict("append-only", Status.PASS, ("TW-CERT-007",))])
    certification = Certification("r", "astrion",
                                  [astrion_core, failed(DURABLE), passed(ASTRION)],
                                  profile="astrion")
    assert levels(certification) == [("core", True, True), ("durable", False, True),
                                      ("astrion", False, True)]
    assert certification.certified_level == "core" and certification.exit_code() == 1


def test_a_level_of_profile_strict_all_skipped_for_astrion_is_judged_and_not_certified() -> None:
    """A level whose scenarios could none be put in astrion's forms (TW-CERT-035) is judged,
    and not claimed: its scenarios were skipped, not written for another profile."""
    certification = Certification("r", "astrion",
                                  [skipped(CORE), skipped(DURABLE), passed(ASTRION)],
                                  profile="astrion")
    # level astrion itself passed (TW-CERT-023); the router is not certified, since a
    # judged level is not (TW-CERT-012)
    assert levels(certification) == [("core", False, True), ("durable", False, True),
                                      ("astrion", True, True)]
    assert certification.levels[0].reason == "none of its 1 scenario ran: every one was skipped"
    assert certification.certified is False and certification.exit_code() == 1


def test_the_reports_say_each_level() -> None:
    certification = Certification("r", "durable", [passed(CORE), failed(DURABLE)],
                                  requested=False)
    data = certification.to_json()
    assert schemas.validate("certification-report", data) == []
    assert data["certified_level"] == "core" and data["level_requested"] is False
    assert [(v["level"], v["certified"], v["scenarios_failed"]) for v in data["levels"]] == [
        ("core", True, 0), ("durable", False, 1)]
    assert data["levels"][1]["reason"] == "1 check failed in 1 scenario of 1"
    text = io.StringIO()
    write_text(certification, text)
    assert text.getvalue().splitlines()[-4:] == [
        "level core: certified",
        "level durable: not certified, 1 check failed in 1 scenario of 1", "",
        "certified at level core; level durable: not certified, 1 check failed in "
        "1 scenario of 1"]
    markdown = io.StringIO()
    write_markdown(certification, markdown)
    assert markdown.getvalue().startswith(
        "## teamwire certify: certified at level core; level durable: not certified")
    assert "| durable | not certified: 1 check failed in 1 scenario of 1 |" in markdown.getvalue()
    assert "core ✓ durable ✗" in badge_svg(certification)


def certify(*args: str) -> tuple[int, dict[str, Any], str]:
    result = CliRunner().invoke(main, ["certify", "--in-process", *args, "-f", "json"])
    report = json.loads(result.stdout) if result.stdout.strip() else {}
    return result.exit_code, report, result.output


@pytest.mark.parametrize(("router", "level", "code", "judged"), [
    pytest.param(FORGETFUL, None, 1, ["core", "durable"], id="forgetful-by-default"),
    pytest.param(FORGETFUL, "core", 0, ["core"], id="forgetful-asked-for-core"),
    pytest.param("teamwire.conformance.inprocess:reference_router", None, 0,
                 ["core", "durable"], id="reference-by-default"),
])
def test_the_command_judges_every_level_of_the_profile_unless_told_otherwise(
        router: str, level: str | None, code: int, judged: list[str]) -> None:
    """A router that keeps nothing across a restart passes the core scenario; without
    --level it is judged at durable too, and fails there."""
    args = ["--scenario", str(SCENARIOS / f"{CORE}.json"),
            "--scenario", str(SCENARIOS / f"{DURABLE}.json")]
    exit_code, report, output = certify(router, *args, *(["--level", level] if level else []))
    assert exit_code == code, output
    assert [v["level"] for v in report["levels"] if v["judged"]] == judged
    assert report["level_requested"] is (level is not None)
    ran = {s["scenario"] for s in report["scenarios"]}
    assert ran == ({CORE} if level == "core" else {CORE, DURABLE})
