"""Model-based fuzzing (``teamwire certify --fuzz``): generated scenarios are valid scenario
vectors the reference router passes, in process and as a process; a router broken on purpose
is caught, the failure shrinks to a small scenario, and the vector written out replays it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings

from teamwire import schemas
from teamwire.conformance.checks import Status, check_run
from teamwire.conformance.fuzz import MAX_INSTANCE, scenarios
from teamwire.conformance.inprocess import InProcessRouter, reference_router
from teamwire.conformance.runner import play
from teamwire.conformance.scenario import Scenario, scenario_from_json

ROOT = Path(__file__).resolve().parents[2]
BROKEN = ROOT / "tests" / "conformance" / "routers" / "broken_inprocess.py"


@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
@given(scenarios("durable"))
def test_a_generated_scenario_fits_the_schema_and_the_reference_router_passes_it(
        data: dict[str, Any]) -> None:
    assert schemas.validate("scenario", data) == []
    scenario = scenario_from_json(data, data["scenario"])
    assert scenario.expectations
    router = InProcessRouter(scenario, reference_router)
    run = play(scenario, router)
    failed = [v for v in check_run(run) if v.status is not Status.PASS]
    assert failed == []
    # Replayed with virtual seconds after each answer, as it was drawn: no two timers of
    # the run fell due at one instant, an order a router on a real clock need not share.
    assert router.timer_ties() == 0
    assert run.restarts == sum(1 for s in data["schedule"] if s.get("crash"))
    assert (data["level"] == "durable") == (run.restarts > 0)


@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
@given(scenarios("core"))
def test_every_tool_call_a_generated_model_makes_is_valid_and_targets_a_near_instance(
        data: dict[str, Any]) -> None:
    """The fuzzer writes what a model following the protocol says: every call it scripts has
    arguments its tool's schema accepts, and a sub-agent it addresses has an instance number
    up to one past those it creates (one the Team Leader may have made, or the next)."""
    for agent in data["agents"]:
        for reply in agent["replies"]:
            for call in reply.get("tool_calls", []):
                arguments = call["arguments"]
                assert schemas.validate_tool_arguments(call["name"], arguments) == [], call
                number = arguments.get("agent_id", arguments.get("source_agent_id", 1))
                assert 1 <= number <= MAX_INSTANCE + 1, call


@settings(max_examples=10, deadline=None, suppress_health_check=list(HealthCheck))
@given(scenarios("core", knobs={}))
def test_a_scenario_for_a_router_that_reads_no_ask_timeout_sets_none_and_passes(
        data: dict[str, Any]) -> None:
    assert "knobs" not in data
    scenario = scenario_from_json(data, data["scenario"])
    run = play(scenario, InProcessRouter(scenario, reference_router))
    assert [v for v in check_run(run) if v.status is not Status.PASS] == []


@settings(max_examples=15, deadline=None, suppress_health_check=list(HealthCheck))
@given(scenarios("durable", wait=8.0))
def test_a_scenario_drawn_for_a_wait_needs_at_most_half_of_it_after_each_step(
        data: dict[str, Any]) -> None:
    # Replayed with half the wait it was drawn for, every expected call and the end still
    # come in time: the other half is left to a router on a real clock.
    scenario = scenario_from_json(data, data["scenario"])
    run = play(scenario, InProcessRouter(scenario, reference_router), wait=4.0)
    assert [v for v in check_run(run) if v.status is not Status.PASS] == []


def test_the_fuzzer_sets_only_the_knobs_the_declaration_names() -> None:
    from teamwire.conformance.capabilities import Capabilities
    from teamwire.conformance.fuzz import fuzz

    seen: list[Scenario] = []

    def record(scenario: Scenario) -> Any:
        seen.append(scenario)
        return play(scenario, InProcessRouter(scenario, reference_router))

    silent = Capabilities(knobs={})
    assert fuzz(record, examples=3, capabilities=silent).failing is None
    assert seen and all(s.knobs == {} for s in seen)
    seen.clear()
    assert fuzz(record, examples=3).failing is None  # no declaration: TW-CERT-014's knobs
    assert seen and all(s.knobs == {"ask_timeout": 5.0} for s in seen)


def test_a_settle_time_passes_on_the_virtual_clock_after_each_answer() -> None:
    data = json.loads((ROOT / "conformance" / "scenarios" / "answers-out-of-order.json")
                      .read_text(encoding="utf-8"))
    scenario = scenario_from_json(data, data["scenario"])
    assert scenario.settle > 0
    router = InProcessRouter(scenario, reference_router)
    run = play(scenario, router)
    answered = sum(1 for step in data["schedule"]
                   if not step.get("await") and not step.get("hold") and not step.get("crash"))
    assert router.clock.now() >= answered * scenario.settle - 1e-9
    assert [v for v in check_run(run) if v.status is not Status.PASS] == []


def certify(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "teamwire", "certify", *args],
                          capture_output=True, text=True, timeout=600, check=False)


def failed_requirements(report: dict[str, Any]) -> set[str]:
    return {r for s in report["scenarios"] for c in s["checks"] if c["status"] == "fail"
            for r in c["requirements"]}


def test_the_fuzzer_catches_a_router_that_drops_inline_messages_and_the_vector_replays(
        tmp_path: Path) -> None:
    broken = f"{BROKEN}:drop_inline"
    result = certify("--in-process", broken, "--level", "core", "--fuzz", "200", "--seed", "3",
                     "--fuzz-out", str(tmp_path), "-f", "json")
    assert result.returncode == 1, result.stderr
    [vector] = tmp_path.glob("fuzz-*.json")
    assert f"replay: teamwire certify --in-process {broken} --level core --scenario " \
           f"{vector}" in result.stderr
    data = json.loads(vector.read_text(encoding="utf-8"))
    assert schemas.validate("scenario", data) == []
    # (a seed whose vector has no step at a timer's instant: it runs as a process too)
    assert not any(step.get("at_timer") for step in data["schedule"])
    # shrunk: a sub-agent whose output reaches the running Team Leader inline, little more
    assert len([s for s in data["schedule"] if not s.get("await")]) <= 6
    report = json.loads(result.stdout)
    assert report["scenarios"][-1]["scenario"] == data["scenario"]
    assert report["fuzz"]["failing"] == data["scenario"]
    assert report["fuzz"]["written"] == str(vector) and report["fuzz"]["agreed"] is False
    assert "TW-ROUTE-008" in failed_requirements(report)
    # the vector replays the failure, and the reference router passes it, in process and
    # as a process
    replay = certify("--in-process", broken, "--scenario", str(vector), "-f", "json")
    assert replay.returncode == 1
    assert "TW-ROUTE-008" in failed_requirements(json.loads(replay.stdout))
    assert certify("--in-process", "--scenario", str(vector)).returncode == 0
    outside = certify("--router", f"{sys.executable} -m teamwire run -q", "--scenario",
                      str(vector))
    assert outside.returncode == 0, outside.stdout


def test_a_fuzzed_router_that_agrees_is_certified_and_says_how_many_scenarios_ran() -> None:
    result = certify("--in-process", "--level", "core", "--fuzz", "20", "--seed", "1")
    assert result.returncode == 0, result.stdout
    said = "fuzz: 20 generated scenarios (level core, seed 1), each shown as the reference " \
           "router shows it"
    assert said in result.stderr
    assert result.stdout.rstrip().splitlines()[-1].endswith(f"; {said}")


def test_shrinking_out_of_time_reports_the_smallest_failure_found_so_far() -> None:
    from teamwire.conformance.fuzz import fuzz, in_process
    from teamwire.conformance.inprocess import load_factory

    ticks = iter(range(0, 10**9, 1000))  # each reading of the clock, 1000 s later
    target = in_process(load_factory(f"{BROKEN}:drop_inline"))
    outcome = fuzz(target, examples=200, seed=2, shrink_budget=60.0,
                   clock=lambda: float(next(ticks)))
    assert outcome.failing is not None and outcome.shrunk is False
    # the case reported is a real failure of the router, replayed as it stands
    replay = target(scenario_from_json(outcome.failing, outcome.failing["scenario"]))
    assert any(v.status is Status.FAIL for v in check_run(replay))


@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(scenarios("core"))
def test_scenarios_drawn_for_a_router_process_never_answer_at_a_timers_instant(
        data: dict[str, Any]) -> None:
    """A router run as a process keeps its own clock: a step at a timer's instant would be
    skipped, so such steps are drawn only for a router in process."""
    assert not any(step.get("at_timer") for step in data["schedule"])


def test_the_fuzzer_in_process_answers_at_timer_instants_and_catches_timers_run_first(
        tmp_path: Path) -> None:
    """The tie of a reply and a timer at one instant (TW-ROUTE-028) is drawn in process: a
    router that runs the timers first is caught by generated scenarios alone."""
    broken = f"{BROKEN}:timers_first"
    result = certify("--in-process", broken, "--level", "core", "--scenario",
                     str(ROOT / "conformance" / "scenarios" / "batch-drain.json"),
                     "--fuzz", "200", "--seed", "1", "--fuzz-out", str(tmp_path), "-f", "json")
    assert result.returncode == 1, result.stderr
    [vector] = tmp_path.glob("fuzz-*.json")
    data = json.loads(vector.read_text(encoding="utf-8"))
    assert any(step.get("at_timer") for step in data["schedule"])
    assert certify("--in-process", "--scenario", str(vector)).returncode == 0
