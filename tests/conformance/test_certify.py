"""``teamwire certify`` against real router processes: the reference router and a router
written from the specification alone are certified; the same router with one mistake made on
purpose is not, with the requirements that mistake breaks; a router that cannot be run as
the contract says gets exit 2 and the reason, never a traceback or a hang."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCENARIOS = ROOT / "conformance" / "scenarios"
MINI = f"{sys.executable} {ROOT / 'tests' / 'conformance' / 'routers' / 'mini_router.py'}"
NODE = shutil.which("node")
MINI_JS = f"{NODE} {ROOT / 'tests' / 'conformance' / 'routers' / 'mini_router.mjs'}"
needs_node = pytest.mark.skipif(NODE is None, reason="needs Node 18 or later")
REFERENCE = f"{sys.executable} -m teamwire run -q"


def certify(router: str, *args: str, env: dict[str, str] | None = None
            ) -> tuple[int, dict[str, Any], str]:
    result = subprocess.run(
        [sys.executable, "-m", "teamwire", "certify", "--router", router, "-f", "json", *args],
        capture_output=True, text=True, timeout=300, env={**os.environ, **(env or {})},
        check=False)
    report = json.loads(result.stdout) if result.stdout.strip() else {}
    return result.returncode, report, result.stderr


def failed_requirements(report: dict[str, Any]) -> dict[str, set[str]]:
    """Scenario → the requirements of its failed checks."""
    return {s["scenario"]: {r for c in s["checks"] if c["status"] == "fail"
                            for r in c["requirements"]}
            for s in report["scenarios"] if not s["passed"]}


@pytest.mark.parametrize("router", [
    REFERENCE, MINI, pytest.param(MINI_JS, marks=needs_node)],
    ids=["reference", "written-from-spec", "written-from-spec-in-javascript"])
def test_a_correct_router_is_certified(router: str) -> None:
    code, report, stderr = certify(router)
    assert code == 0, stderr
    assert report["certified"] is True
    names = {s["scenario"] for s in report["scenarios"]}
    assert names == {p.stem for p in SCENARIOS.glob("*.json")
                     if json.loads(p.read_text(encoding="utf-8"))["level"] == "core"}
    assert all(c["status"] == "pass" for s in report["scenarios"] for c in s["checks"])


def test_the_reference_router_is_certified_durable_and_a_router_without_state_is_not() -> None:
    """Level durable adds crash and restart: the reference router keeps its session in the
    state directory; the router written from the specification keeps nothing, comes back
    from the request after each crash, and fails every durable scenario."""
    code, report, stderr = certify(REFERENCE, "--level", "durable")
    assert code == 0, stderr
    durable = {p.stem for p in SCENARIOS.glob("*.json")
               if json.loads(p.read_text(encoding="utf-8"))["level"] == "durable"}
    assert durable and durable <= {s["scenario"] for s in report["scenarios"]}
    code, report, stderr = certify(MINI, "--level", "durable", "--wait", "3")
    assert code == 1, stderr
    failed = failed_requirements(report)
    assert set(failed) == durable
    assert all("TW-DUR-004" in found for found in failed.values())


@pytest.mark.parametrize(("fault", "scenario", "requirement"), [
    ("drop-final", "message-during-final-reply", "TW-ROUTE-011"),
    ("reverse-batch", "batch-drain", "TW-ROUTE-008"),
    ("no-inline", "message-to-running-sub-agent", "TW-ROUTE-008"),
    ("no-timeout", "ask-timeout", "TW-ROUTE-017"),
    ("no-round-limit", "ask-between-sub-agents-and-round-limit", "TW-MSG-010"),
])
def test_a_router_with_a_mistake_fails_with_the_requirement_it_breaks(
        fault: str, scenario: str, requirement: str) -> None:
    code, report, stderr = certify(MINI, "--scenario", str(SCENARIOS / f"{scenario}.json"),
                                   "--wait", "2", env={"MINI_ROUTER_FAULT": fault})
    assert code == 1, stderr
    assert report["certified"] is False
    assert requirement in failed_requirements(report)[scenario]
    assert "TW-CERT-001" not in failed_requirements(report)[scenario]  # judged, not refused


@needs_node
@pytest.mark.parametrize(("fault", "scenario", "requirement"), [
    ("drop-final", "message-during-final-reply", "TW-ROUTE-011"),
    ("no-timeout", "ask-timeout", "TW-ROUTE-017"),
])
def test_the_javascript_router_with_a_mistake_fails_too(fault: str, scenario: str,
                                                        requirement: str) -> None:
    code, report, stderr = certify(MINI_JS, "--scenario", str(SCENARIOS / f"{scenario}.json"),
                                   "--wait", "2", env={"MINI_ROUTER_FAULT": fault})
    assert code == 1, stderr
    assert requirement in failed_requirements(report)[scenario]


def test_a_router_that_cannot_be_started_is_a_contract_breach() -> None:
    code, report, _ = certify("/nonexistent/router --flag")
    assert code == 2
    [first] = report["scenarios"]  # the other scenarios would only say the same
    [contract] = [c for c in first["checks"] if c["check"] == "contract"]
    assert contract["status"] == "fail"
    assert "cannot start the router '/nonexistent/router --flag'" in contract["reason"]


@pytest.mark.parametrize(("router", "reason"), [
    (f"{sys.executable} {ROOT / 'tests' / 'conformance' / 'routers' / 'garbage_router.py'}",
     "the request body is not JSON"),
    (f"{sys.executable} -c pass", "the router exited (code 0) before model call 1"),
    (f"{sys.executable} -c 'import time; time.sleep(600)'", "did not come within 1 s"),
])
def test_a_router_that_breaks_the_contract_gets_exit_2_with_what_was_received(
        router: str, reason: str) -> None:
    code, report, stderr = certify(router, "--scenario",
                                   str(SCENARIOS / "task-to-idle-sub-agent.json"), "--wait", "1")
    assert code == 2, stderr
    [scenario] = report["scenarios"]
    [contract] = [c for c in scenario["checks"] if c["check"] == "contract"]
    assert reason in contract["reason"]
    assert "Traceback" not in stderr


def test_the_text_report_shows_expected_and_received(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "teamwire", "certify", "--router", MINI, "--scenario",
         str(SCENARIOS / "batch-drain.json")],
        capture_output=True, text=True, timeout=120, check=False,
        env={**os.environ, "MINI_ROUTER_FAULT": "reverse-batch"})
    assert result.returncode == 1
    lines = result.stdout.splitlines()
    assert lines[0].startswith("FAIL batch-drain (")
    assert any(line.startswith("  fail: UI Operator_1 call 2 [TW-ROUTE-005, TW-ROUTE-008]")
               for line in lines)
    expected = next(line for line in lines if line.startswith("    expected: "))
    received = next(line for line in lines if line.startswith("    received: "))
    # the expected order is the order sent; the router appended them the other way round
    assert expected.index("msg_tl_001") < expected.index("msg_tl_002")
    assert received.index("msg_tl_002") < received.index("msg_tl_001")
    assert lines[-1] == "not certified at level core: 0 of 1 scenarios passed"


def test_a_scenario_that_cannot_be_read_is_exit_2(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"scenario": "Bad Name"}', encoding="utf-8")
    result = subprocess.run(
        [sys.executable, "-m", "teamwire", "certify", "--router", REFERENCE, "--scenario",
         str(bad)], capture_output=True, text=True, timeout=60, check=False)
    assert result.returncode == 2
    assert result.stderr.startswith(f"error: {bad}: ")
    assert "Traceback" not in result.stderr


def test_reports_for_ci_junit_markdown_badge_and_the_json_schema(tmp_path: Path) -> None:
    from teamwire import schemas

    badge = tmp_path / "badge.svg"
    scenario = str(SCENARIOS / "batch-drain.json")
    env = {"MINI_ROUTER_FAULT": "reverse-batch"}
    code, report, _ = certify(MINI, "--scenario", scenario, "--badge", str(badge), env=env)
    assert code == 1
    assert schemas.validate("certification-report", report) == []
    assert "core ✗" in badge.read_text(encoding="utf-8")
    junit = subprocess.run(
        [sys.executable, "-m", "teamwire", "certify", "--router", MINI, "--scenario", scenario,
         "-f", "junit"], capture_output=True, text=True, timeout=120, check=False,
        env={**os.environ, **env})
    import xml.etree.ElementTree as ElementTree

    suite = ElementTree.fromstring(junit.stdout)
    [case] = suite.iter("testcase")
    assert case.get("name") == "batch-drain"
    assert "TW-ROUTE-008" in case.find("failure").get("message")  # type: ignore[union-attr]
    markdown = subprocess.run(
        [sys.executable, "-m", "teamwire", "certify", "--router", MINI, "--scenario", scenario,
         "-f", "markdown"], capture_output=True, text=True, timeout=120, check=False,
        env={**os.environ, **env})
    assert "| batch-drain | fail | TW-ROUTE-005, TW-ROUTE-008 |" in markdown.stdout


def test_a_baseline_accepts_the_failures_it_lists_and_fails_on_a_stale_entry(
        tmp_path: Path) -> None:
    baseline = tmp_path / "baseline.json"
    baseline.write_text(json.dumps({"expected_failures": [
        {"scenario": "batch-drain", "reason": "batches are appended newest first (#12)"}]}),
        encoding="utf-8")
    scenario = str(SCENARIOS / "batch-drain.json")
    code, report, _ = certify(MINI, "--scenario", scenario, "--baseline", str(baseline),
                              env={"MINI_ROUTER_FAULT": "reverse-batch"})
    assert code == 0  # nothing fails but what the baseline expects
    assert report["certified"] is False and report["baseline"] == str(baseline)
    statuses = {c["status"] for c in report["scenarios"][0]["checks"]}
    assert "expected-fail" in statuses and "fail" not in statuses
    code, report, _ = certify(MINI, "--scenario", scenario, "--baseline", str(baseline))
    assert code == 1  # the router does it right now: the entry is stale
    assert report["scenarios"][0]["stale_baseline"] == ["*"]
    baseline.write_text('{"expected_failures": [{"scenario": "no-such-scenario", '
                        '"reason": "x"}]}', encoding="utf-8")
    code, _, stderr = certify(MINI, "--scenario", scenario, "--baseline", str(baseline))
    assert code == 2 and "no scenario of level core is called no-such-scenario" in stderr
