"""The refusal check (TW-ROUTE-032 through TW-CERT-020): a router started with a knob value
it must refuse passes only by exiting by itself with a non-zero status and calling no model.
Exiting with status 0 is how a router ends a session, not how it refuses one."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from teamwire.conformance.checks import Status, Verdict, check_run
from teamwire.conformance.runner import run_scenario
from teamwire.conformance.scenario import load_scenario

SCENARIOS = Path(__file__).resolve().parents[2] / "conformance" / "scenarios"


def refusal(command: list[str], name: str) -> Verdict:
    run = run_scenario(load_scenario(SCENARIOS / f"{name}.json"), command, wait=10)
    [verdict] = [v for v in check_run(run) if v.check == "refusal"]
    return verdict


@pytest.mark.parametrize("name", ["refuses-a-zero-ask-timeout", "refuses-a-zero-round-limit"])
def test_a_router_that_exits_0_without_a_model_call_has_not_refused(name: str) -> None:
    verdict = refusal([sys.executable, "-c", "pass"], name)
    assert verdict.status is Status.FAIL
    assert "exited with status 0" in verdict.reason
    assert set(verdict.requirements) >= {"TW-ROUTE-032", "TW-CERT-020"}


def test_a_router_that_exits_with_another_status_without_a_model_call_has_refused() -> None:
    verdict = refusal([sys.executable, "-c", "raise SystemExit(3)"],
                      "refuses-a-zero-ask-timeout")
    assert verdict.status is Status.PASS
    assert "code 3" in verdict.reason
