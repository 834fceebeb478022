"""The run checks are declared once (``conformance.run_checks``): every verdict of a run
check carries a registered name and cites only requirements its entry declares, and the
traceability matrix and the docs read the same entries."""

from __future__ import annotations

from pathlib import Path

import pytest

from teamwire.conformance.capabilities import Capabilities
from teamwire.conformance.checks import Status, check_run
from teamwire.conformance.inprocess import InProcessRouter, reference_router
from teamwire.conformance.run_checks import RUN_CHECKS
from teamwire.conformance.runner import play
from teamwire.conformance.scenario import load_scenario
from teamwire.conformance.traceability import RUN_CHECKS as MATRIX_CHECKS
from tests.docs.hook_modules import load

ROOT = Path(__file__).resolve().parents[2]
SCENARIO_CHECKS = {"model-calls", "refusal"}
"""Checks of the scenario's own expectations, citing the scenario's requirements."""


def test_a_verdict_may_cite_only_what_its_check_declares() -> None:
    check = RUN_CHECKS["append-only"]
    assert check.verdict(Status.PASS).requirements == check.requirements
    assert check.verdict(Status.FAIL, ("TW-CERT-007",)).requirements == ("TW-CERT-007",)
    with pytest.raises(ValueError, match="TW-DEL-002"):
        check.verdict(Status.FAIL, ("TW-DEL-002",))
    with pytest.raises(ValueError, match="nothing"):
        check.verdict(Status.FAIL, ())


def test_every_run_check_of_the_shipped_scenarios_is_registered() -> None:
    seen: set[str] = set()
    for path in sorted((ROOT / "conformance" / "scenarios").glob("*.json")):
        scenario = load_scenario(path)
        if scenario.profile != "strict":
            continue
        run = play(scenario, InProcessRouter(scenario, reference_router))
        for verdict in check_run(run, Capabilities(features=frozenset({"send-delivery"}))):
            if verdict.check in SCENARIO_CHECKS or " call " in verdict.check:
                continue
            assert verdict.check in RUN_CHECKS, verdict.check
            assert set(verdict.requirements) <= set(RUN_CHECKS[verdict.check].requirements)
            seen.add(verdict.check)
    # profile astrion's stops, and strict scenarios in astrion's forms, only
    assert seen == set(RUN_CHECKS) - {"dropped-replies", "astrion-result-texts"}


def test_the_matrix_and_the_catalog_read_the_registry() -> None:
    assert {name: c.requirements for name, c in RUN_CHECKS.items()} == MATRIX_CHECKS
    page = load("certification_pages").scenarios_page()
    for check in RUN_CHECKS.values():
        section = page.split(f"### {check.name} {{#check-", 1)[1].split("\n### ", 1)[0]
        assert check.checks in section
        assert all(r in section for r in check.requirements)
