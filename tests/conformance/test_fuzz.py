"""Model-based fuzzing (``teamwire certify --fuzz``): generated scenarios are valid scenario
vectors the reference router passes, in process and as a process; a router broken on purpose
is caught, the failure shrinks to a small scenario, and the vector written out replays it."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings

from teamwire import schemas
from teamwire.conformance.checks import Status, check_run
from teamwire.conformance.fuzz import scenarios
from teamwire.conformance.inprocess import InProcessRouter, reference_router
from teamwire.conformance.runner import play
from teamwire.conformance.scenario import scenario_from_json

ROOT = Path(__file__).resolve().parents[2]
BROKEN = ROOT / "tests" / "conformance" / "routers" / "broken_inprocess.py"


@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
@given(scenarios("durable"))
def test_a_generated_scenario_fits_the_schema_and_the_reference_router_passes_it(
        data: dict[str, Any]) -> None:
    assert schemas.validate("scenario", data) == []
    scenario = scenario_from_json(data, data["scenario"])
    assert scenario.expectations
    run = play(scenario, InProcessRouter(scenario, reference_router))
    failed = [v for v in check_run(run) if v.status is not Status.PASS]
    assert failed == []
    assert run.restarts == sum(1 for s in data["schedule"] if s.get("crash"))
    assert (data["level"] == "durable") == (run.restarts > 0)


def certify(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "teamwire", "certify", *args],
                          capture_output=True, text=True, timeout=600, check=False)


def failed_requirements(report: dict[str, Any]) -> set[str]:
    return {r for s in report["scenarios"] for c in s["checks"] if c["status"] == "fail"
            for r in c["requirements"]}


def test_the_fuzzer_catches_a_router_that_drops_inline_messages_and_the_vector_replays(
        tmp_path: Path) -> None:
    broken = f"{BROKEN}:drop_inline"
    result = certify("--in-process", broken, "--level", "core", "--fuzz", "200", "--seed", "2",
                     "--fuzz-out", str(tmp_path), "-f", "json")
    assert result.returncode == 1, result.stderr
    [vector] = tmp_path.glob("fuzz-*.json")
    assert f"replay: teamwire certify --in-process {broken} --level core --scenario " \
           f"{vector}" in result.stderr
    data = json.loads(vector.read_text(encoding="utf-8"))
    assert schemas.validate("scenario", data) == []
    # shrunk: a sub-agent whose output reaches the running Team Leader inline, little more
    assert len([s for s in data["schedule"] if not s.get("await")]) <= 6
    report = json.loads(result.stdout)
    assert report["scenarios"][-1]["scenario"] == data["scenario"]
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
    assert re.search(r"fuzz: 20 generated scenarios \(level core, seed 1\): the router showed "
                     r"every model what the reference router shows", result.stderr)
