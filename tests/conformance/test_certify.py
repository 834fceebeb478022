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

from tests.conformance.reports import what_failed

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
            for s in report["scenarios"] if not s["passed"] and "skipped" not in s}


def reference_declaration(tmp_path: Path) -> str:
    """The reference router's capability declaration, as ``teamwire run --describe`` says."""
    declared = subprocess.run([sys.executable, "-m", "teamwire", "run", "--describe"],
                              capture_output=True, text=True, timeout=60, check=True).stdout
    path = tmp_path / "reference.json"
    path.write_text(declared, encoding="utf-8")
    return str(path)


def moves_clock(path: Path) -> bool:
    """Whether a scenario answers a call at a timer's instant (in process only)."""
    return any(step.get("at_timer") for step in
               json.loads(path.read_text(encoding="utf-8"))["schedule"])


def waits_long(path: Path) -> bool:
    """Whether a scenario waits longer than a black-box run's default bound (in process
    only, TW-CERT-031)."""
    return float(json.loads(path.read_text(encoding="utf-8")).get("wait", 0)) > 10


CLOCK_SCENARIOS = sorted(p.stem for p in SCENARIOS.glob("*.json") if moves_clock(p))
LONG_SCENARIOS = sorted(p.stem for p in SCENARIOS.glob("*.json") if waits_long(p))


def test_the_reference_router_passes_every_check_of_every_scenario(tmp_path: Path) -> None:
    """Black-box, every scenario of profile strict runs and passes but those that answer a
    call at a timer's instant, which a router run as a process cannot be given: each is
    skipped with the reason, not passed (TW-CERT-021)."""
    code, report, stderr = certify(REFERENCE, "--level", "durable",
                                   "--describe", reference_declaration(tmp_path))
    assert code == 0, what_failed(report) + "\n" + stderr
    assert report["certified"] is True
    assert {s["scenario"] for s in report["scenarios"]} == {
        p.stem for p in SCENARIOS.glob("*.json")
        if json.loads(p.read_text(encoding="utf-8"))["profile"] == "strict"}
    skipped = {s["scenario"]: s for s in report["scenarios"] if "skipped" in s}
    assert CLOCK_SCENARIOS == ["answer-at-the-ask-timeout", "turn-timers-at-one-instant"]
    assert LONG_SCENARIOS == ["default-ask-timeout"]
    assert sorted(skipped) == sorted(CLOCK_SCENARIOS + LONG_SCENARIOS)
    assert all("at the instant the router's next timer is due" in skipped[s]["skipped"]
               and "TW-ROUTE-028" in skipped[s]["skipped"] for s in CLOCK_SCENARIOS)
    assert all("needs a wait of 300 s of the router's clock" in skipped[s]["skipped"]
               and "TW-ROUTE-017" in skipped[s]["skipped"] for s in LONG_SCENARIOS)
    assert all(not s["passed"] and not s["checks"] for s in skipped.values())
    assert all(c["status"] == "pass" for s in report["scenarios"] for c in s["checks"])


def test_a_timer_instant_scenario_alone_cannot_judge_a_router_run_as_a_process() -> None:
    """Given only scenarios it must skip, the harness has no verdict: exit 2 with the
    reason, and no router is started."""
    result = subprocess.run(
        [sys.executable, "-m", "teamwire", "certify", "--router", "/nonexistent/router",
         "--scenario", str(SCENARIOS / "answer-at-the-ask-timeout.json")],
        capture_output=True, text=True, timeout=120, check=False)
    assert result.returncode == 2
    # the message is cut in the middle when long: its start and its end are kept
    assert "no scenario of level core can be run" in result.stderr
    assert "the scenario answers a model call at the instant" in result.stderr
    assert "not checked here (run in process: teamwire certify --in-process)" in result.stderr
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize("router", [MINI, pytest.param(MINI_JS, marks=needs_node)],
                         ids=["written-from-spec", "written-from-spec-in-javascript"])
def test_a_correct_router_is_certified_and_told_what_it_did_not_declare(router: str) -> None:
    """The routers written from the specification give no declaration: they are taken to
    read the ask timeout and the round limit only, so the scenarios that set the default
    turn timeout, the number of model-call retries or unanswered_asks are skipped, with the
    reason, and not counted as passed, as is the scenario that answers a call at a timer's
    instant, which a router run as a process cannot be given; the scenario of
    unanswered_asks' default runs."""
    code, report, stderr = certify(router, "--level", "core")
    assert code == 0, what_failed(report) + "\n" + stderr
    assert report["certified"] is True
    assert [v["level"] for v in report["levels"]] == ["core"]
    names = {s["scenario"] for s in report["scenarios"]}
    assert names == {p.stem for p in SCENARIOS.glob("*.json")
                     if json.loads(p.read_text(encoding="utf-8"))["level"] == "core"}
    skipped = {s["scenario"]: s["skipped"] for s in report["scenarios"] if "skipped" in s}
    assert sorted(skipped) == ["answer-at-the-ask-timeout",
                               "answer-to-no-pending-question", "default-ask-timeout",
                               "default-turn-timeout",
                               "leader-model-call-fails",
                               "model-call-retried",
                               "refuses-a-negative-number-of-model-retries",
                               "refuses-a-zero-turn-timeout",
                               "refuses-an-unknown-unanswered-asks-value",
                               "sub-agent-model-call-fails",
                               "turn-timers-at-one-instant",
                               "unanswered-ask-master", "unanswered-ask-sub-agent",
                               "unanswered-spares-a-queued-ask"]
    assert "needs the router's clock" in skipped["answer-at-the-ask-timeout"]
    assert "needs the router's clock" in skipped["turn-timers-at-one-instant"]
    assert "needs a wait of 300 s" in skipped["default-ask-timeout"]
    assert "declares no turn_timeout knob" in skipped["default-turn-timeout"]
    assert "declares no unanswered_asks knob" in skipped["unanswered-ask-master"]
    assert "declares no model_retries knob" in skipped["model-call-retried"]
    assert all(not s["passed"] and not s["checks"] for s in report["scenarios"]
               if "skipped" in s)
    assert all(c["status"] == "pass" for s in report["scenarios"] for c in s["checks"])


def test_a_router_that_keeps_nothing_is_not_certified_by_default() -> None:
    """Without --level, level durable (crash and restart) is judged too: the router written
    from the specification keeps nothing, comes back from the request after each crash, and
    fails every durable scenario, so it is certified at level core only and exits 1
    (TW-CERT-024)."""
    durable = {p.stem for p in SCENARIOS.glob("*.json")
               if json.loads(p.read_text(encoding="utf-8"))["level"] == "durable"}
    code, report, stderr = certify(MINI, "--wait", "3")
    assert code == 1, stderr
    assert report["certified"] is False and report["level_requested"] is False
    assert (report["level"], report["certified_level"]) == ("durable", "core")
    core, durable_level = report["levels"]
    assert core["certified"] is True and core["judged"] is True
    assert durable_level["certified"] is False
    assert durable_level["scenarios_failed"] == durable_level["scenarios_run"] == len(durable)
    failed = failed_requirements(report)
    assert set(failed) == durable
    assert all("TW-DUR-004" in found for found in failed.values())


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
    assert any(line.startswith("  fail: UI Operator_1 call 2 [TW-ROUTE-005, TW-ROUTE-008, TW-DEL-003]")
               for line in lines)
    expected = next(line for line in lines if line.startswith("    expected: "))
    received = next(line for line in lines if line.startswith("    received: "))
    # the expected order is the order sent; the router appended them the other way round
    assert expected.index("msg_tl_001") < expected.index("msg_tl_002")
    assert received.index("msg_tl_002") < received.index("msg_tl_001")
    assert lines[-3:] == ["level core: not certified, 1 check failed in 1 scenario of 1", "",
                          "not certified at level core: 1 check failed in 1 scenario of 1"]


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
    failure = case.find("failure")
    assert failure is not None
    assert "TW-ROUTE-008" in failure.get("message", "")
    markdown = subprocess.run(
        [sys.executable, "-m", "teamwire", "certify", "--router", MINI, "--scenario", scenario,
         "-f", "markdown"], capture_output=True, text=True, timeout=120, check=False,
        env={**os.environ, **env})
    assert "| batch-drain | fail | TW-DEL-003, TW-ROUTE-005, TW-ROUTE-008 |" in markdown.stdout


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


@pytest.mark.parametrize(("declaration", "message"), [
    ('{"teamwire": "1.0"}', "(root): 'profile' is a required property"),
    ('{"teamwire": "1.0", "profile": "strict", "knobs": {"round_limit": "ROUND LIMIT"}}',
     "knobs/round_limit"),
    ("not json", "Expecting value"),
], ids=["no-profile", "bad-variable-name", "not-json"])
def test_a_declaration_that_cannot_be_used_is_exit_2_with_the_reason(
        tmp_path: Path, declaration: str, message: str) -> None:
    path = tmp_path / "caps.json"
    path.write_text(declaration, encoding="utf-8")
    code, _, stderr = certify(MINI, "--describe", str(path), "--level", "durable")
    assert code == 2
    assert stderr.startswith("error: ") and message in stderr
    assert "Traceback" not in stderr


def test_declared_knobs_go_in_the_variables_the_declaration_names(tmp_path: Path) -> None:
    """A router may read a knob from a variable of its own: the harness sets that one, and
    the scenario that needs the knob runs; the standard variable is not set."""
    from teamwire.conformance.capabilities import capabilities_from_json
    from teamwire.conformance.runner import router_environment
    from teamwire.conformance.scenario import load_scenario

    scenario = load_scenario(SCENARIOS / "ask-timeout.json")
    declared = capabilities_from_json({"teamwire": "1.0", "profile": "strict",
                                       "knobs": {"ask_timeout": "MY_ASK_SECONDS"}})
    assert declared.skip_reason(scenario) is None
    env = router_environment(scenario, "http://127.0.0.1:1/v1", tmp_path, declared)
    assert env["MY_ASK_SECONDS"] == "1.0"
    assert "TEAMWIRE_ASK_TIMEOUT" not in env or env["TEAMWIRE_ASK_TIMEOUT"] == os.environ.get(
        "TEAMWIRE_ASK_TIMEOUT")
    roles = json.loads(Path(env["TEAMWIRE_ROLES"]).read_text(encoding="utf-8"))
    assert [r["role_id"] for r in roles] == ["ui-operator", "full-stack-engineer"]
    undeclared = capabilities_from_json({"teamwire": "1.0", "profile": "strict"}, "caps.json")
    reason = undeclared.skip_reason(scenario)
    assert reason is not None and "declares no ask_timeout knob in caps.json" in reason


def test_the_preset_role_catalog_is_the_reference_routers() -> None:
    """The file TEAMWIRE_ROLES names holds the roles the reference router is built with, each
    a valid role definition."""
    from teamwire import schemas
    from teamwire.router.runtime.roles import DEFAULT_ROLES

    roles = json.loads((ROOT / "spec" / "certification" / "preset-roles.json").read_text(
        encoding="utf-8"))
    assert all(schemas.validate("role", role) == [] for role in roles)
    assert roles == [role.to_record() for role in DEFAULT_ROLES]
