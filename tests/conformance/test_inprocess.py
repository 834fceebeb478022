"""``teamwire certify --in-process``: the scenarios run against Python routers in this
process, on virtual time. The reference router gets the same verdicts, and shows every model
the same messages, in process as it does as a subprocess; a router that keeps nothing across
a crash fails the durable scenarios in process as it does black-box."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from teamwire.cli import run_cmd
from teamwire.conformance.capabilities import capabilities_from_json
from teamwire.conformance.checks import Status, answered_calls, appended, check_run
from teamwire.conformance.inprocess import (
    FactoryError,
    InProcessRouter,
    InProcessSetup,
    load_factory,
    reference_router,
)
from teamwire.conformance.runner import Run, clock_skip_reason, play, run_scenario
from teamwire.conformance.scenario import load_scenario
from teamwire.router.runtime import Session

ROOT = Path(__file__).resolve().parents[2]
SCENARIOS = sorted(p for p in (ROOT / "conformance" / "scenarios").glob("*.json")
                   if json.loads(p.read_text(encoding="utf-8"))["profile"] == "strict")
"""The scenarios of profile strict, the reference router's."""
REFERENCE = [sys.executable, "-m", "teamwire", "run", "-q"]
BROKEN = ROOT / "tests" / "conformance" / "routers" / "broken_inprocess.py"


def observed(run: Run) -> dict[str, list[Any]]:
    """Agent → what the router appended before each of its model calls."""
    return {agent: [appended(calls, n) for n in sorted(calls)]
            for agent, calls in sorted(answered_calls(run).items())}


REFERENCE_DECLARED = capabilities_from_json(run_cmd.CAPABILITIES)
"""What ``teamwire run --describe`` declares: its knobs are set, its features checked."""


def verdicts(run: Run) -> list[tuple[str, str, tuple[str, ...]]]:
    return [(v.check, v.status.value, v.requirements)
            for v in check_run(run, REFERENCE_DECLARED)]


def test_in_process_and_subprocess_runs_of_the_reference_router_agree() -> None:
    """Every shipped scenario, durable ones included: the same verdicts, and the same
    messages appended before every model call of every agent."""
    for path in SCENARIOS:
        scenario = load_scenario(path)
        inside = play(scenario, InProcessRouter(scenario, reference_router))
        if clock_skip_reason(scenario) is not None:
            # a process keeps its own time: only the in-process run can take the step
            assert all(status == "pass" for _, status, _ in verdicts(inside)), scenario.name
            continue
        outside = run_scenario(scenario, REFERENCE, capabilities=REFERENCE_DECLARED)
        assert verdicts(inside) == verdicts(outside), scenario.name
        assert all(status == "pass" for _, status, _ in verdicts(inside)), scenario.name
        assert observed(inside) == observed(outside), scenario.name
        assert inside.restarts == outside.restarts
        # Which replies a process asks for again after SIGKILL depends on what it had
        # committed at that instant; in process the crash comes once the router is quiet.
        # Either way the checks above hold.


async def _forgetful(setup: InProcessSetup) -> object:
    """The reference router with its session in memory: a crash loses everything, and the
    new life starts over from the request."""
    session = Session(leader=setup.model, drivers=lambda name, role: setup.model,
                      clock=setup.clock)
    await session.start(setup.request)
    return session


@pytest.mark.parametrize("path", [p for p in SCENARIOS
                                  if json.loads(p.read_text(encoding="utf-8"))["level"]
                                  == "durable"], ids=lambda p: p.stem)
def test_a_router_that_keeps_nothing_across_a_crash_fails_in_process(path: Path) -> None:
    scenario = load_scenario(path)
    run = play(scenario, InProcessRouter(scenario, _forgetful), wait=2)
    assert run.restarts >= 1
    failed = {r for v in check_run(run) if v.status is Status.FAIL for r in v.requirements}
    assert "TW-DUR-004" in failed
    assert "TW-CERT-001" not in failed  # judged, not refused


def test_a_crash_runs_none_of_the_dropped_routers_code() -> None:
    """After the crash the old life never runs again: its turns are not resumed, and no
    model call of it arrives once the new life has started."""
    scenario = load_scenario(ROOT / "conformance" / "scenarios" / "restart-while-asking.json")
    lives: list[int] = []

    async def counting(setup: InProcessSetup) -> object:
        lives.append(setup.life)
        return await reference_router(setup)

    run = play(scenario, InProcessRouter(scenario, counting))
    assert lives == [0, 1]
    assert all(v.status is Status.PASS for v in check_run(run))
    first_of_second = next(i for i, c in enumerate(run.calls) if c.life == 1)
    assert all(c.life == 1 for c in run.calls[first_of_second:])


@pytest.mark.parametrize(("spec", "message"), [
    ("no-colon", "write MODULE:FACTORY"),
    ("nosuch_module_xyz:f", "cannot import nosuch_module_xyz: ModuleNotFoundError"),
    ("teamwire.conformance.inprocess:nothing_here", "has no callable nothing_here"),
    ("/nonexistent/router.py:f", "no such file"),
])
def test_a_factory_that_cannot_be_used_is_refused_with_the_reason(spec: str,
                                                                  message: str) -> None:
    with pytest.raises(FactoryError, match=message):
        load_factory(spec)


def test_a_factory_in_a_python_file_is_found() -> None:
    factory = load_factory(f"{BROKEN}:drop_inline")
    assert callable(factory)


def certify(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "teamwire", "certify", *args],
                          capture_output=True, text=True, timeout=300, check=False)


def test_the_command_certifies_the_reference_router_in_process_at_every_level_by_default(
        ) -> None:
    """No --level: every level with a scenario of profile strict is judged, core and
    durable, and each is certified (TW-CERT-024)."""
    result = certify("--in-process", "-f", "json")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["certified"] is True
    assert report["level"] == report["certified_level"] == "durable"
    assert report["level_requested"] is False
    assert [(v["level"], v["certified"], v["judged"]) for v in report["levels"]] == [
        ("core", True, True), ("durable", True, True)]
    assert report["router"] == "in-process teamwire.conformance.inprocess:reference_router"
    assert {s["scenario"] for s in report["scenarios"]} == {p.stem for p in SCENARIOS}


@pytest.mark.parametrize("args", [
    [], ["--in-process", "--router", "teamwire run -q"], ["--in-process", "no-colon"]],
    ids=["neither", "both", "bad-factory"])
def test_the_command_wants_exactly_one_router(args: list[str]) -> None:
    result = certify(*args)
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    assert "--router" in result.stderr or "--in-process" in result.stderr
