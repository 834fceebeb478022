"""Every rule that turns the checks into ``teamwire certify``'s exit code has teeth (issue
#26): a contract breach is 2 whatever else; a failed check 1; with a baseline, 0 when only
the failures it lists fail, 1 on a new failure or on an entry that passes now; a skipped
scenario is neither passed nor failed, a run with nothing but skipped scenarios is 2; a
level runs its own scenarios and those of the levels before it.

The command runs in this process (click's runner) against in-process routers, so that a
mutation of the command or of the report is seen by these tests.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from teamwire.cli.certify_cmd import certify
from teamwire.conformance.report import Certification, ScenarioResult
from teamwire.conformance.scenario import load_scenario

ROOT = Path(__file__).resolve().parents[2]
SCENARIOS = ROOT / "conformance" / "scenarios"
BROKEN = ROOT / "tests" / "conformance" / "routers" / "broken_inprocess.py"
CORE = "task-to-idle-sub-agent"
ANOTHER_CORE = "batch-drain"
DURABLE = "restart-while-asking"
ASTRION = "astrion-ask-master"


def scenario(name: str) -> str:
    return str(SCENARIOS / f"{name}.json")


def run_certify(*args: str, fault: str | None = None) -> tuple[int, dict[str, Any], str]:
    """Exit code, JSON report (empty when none was written) and standard error."""
    router = [f"--in-process={BROKEN}:{fault}"] if fault else ["--in-process"]
    result = CliRunner().invoke(certify, [*router, "-f", "json", *args])
    assert result.exception is None or isinstance(result.exception, SystemExit), \
        result.exception
    report = json.loads(result.stdout) if result.stdout.strip() else {}
    return result.exit_code, report, result.stderr


def baseline(tmp_path: Path, *entries: dict[str, str]) -> str:
    path = tmp_path / "baseline.json"
    path.write_text(json.dumps({"expected_failures": [{"reason": "known (#1)", **e}
                                                      for e in entries]}), encoding="utf-8")
    return str(path)


def statuses(report: dict[str, Any]) -> dict[str, dict[str, str]]:
    """Scenario → check → the status the report shows."""
    return {s["scenario"]: {c["check"]: c["status"] for c in s["checks"]}
            for s in report["scenarios"]}


# -- without a baseline ------------------------------------------------------------------


def test_every_scenario_passing_is_certified_and_exit_0() -> None:
    code, report, stderr = run_certify("--scenario", scenario(CORE))
    assert code == 0, stderr
    assert report["certified"] is True


def test_a_failed_check_is_not_certified_and_exit_1() -> None:
    code, report, _ = run_certify("--scenario", scenario(CORE), "--scenario",
                                  scenario(ANOTHER_CORE), fault="rewrites_history")
    assert code == 1
    assert report["certified"] is False
    assert statuses(report)[CORE]["append-only"] == "fail"


def test_a_contract_breach_is_exit_2_though_every_other_check_passes() -> None:
    code, report, _ = run_certify("--scenario", scenario(CORE), fault="never_exits")
    assert code == 2
    [result] = report["scenarios"]
    assert {check for check, status in statuses(report)[CORE].items()
            if status == "fail"} == {"contract"}
    assert result["passed"] is False


def test_a_contract_breach_is_exit_2_though_another_check_fails_too(tmp_path: Path) -> None:
    """2 wins over 1, and over a baseline that expects the scenario to fail: a router that
    breaks the contract cannot be judged, so no failure of it is expected or new."""
    code, _, _ = run_certify("--scenario", scenario(CORE), "--baseline",
                             baseline(tmp_path, {"scenario": CORE}), fault="never_exits")
    assert code == 2


# -- with a baseline ---------------------------------------------------------------------


def test_only_the_failures_a_baseline_lists_is_exit_0(tmp_path: Path) -> None:
    code, report, stderr = run_certify(
        "--scenario", scenario(CORE), "--scenario", scenario(ANOTHER_CORE), "--baseline",
        baseline(tmp_path, {"scenario": CORE, "check": "append-only"},
                 {"scenario": ANOTHER_CORE, "check": "append-only"}),
        fault="rewrites_history")
    assert code == 0, stderr
    assert report["certified"] is False  # a baseline excuses failures, it certifies nothing
    assert statuses(report)[CORE]["append-only"] == "expected-fail"
    assert "stale_baseline" not in report["scenarios"][0]


def test_a_failure_of_another_check_than_the_baseline_lists_is_exit_1(tmp_path: Path) -> None:
    code, report, _ = run_certify(
        "--scenario", scenario(CORE), "--baseline",
        baseline(tmp_path, {"scenario": CORE, "check": "append-only"}),
        fault="drops_tool_results")
    assert code == 1
    checks = statuses(report)[CORE]
    assert checks["one-result-per-tool-call"] == "fail"  # not excused: new
    assert report["scenarios"][0]["stale_baseline"] == ["append-only"]


def test_a_failure_of_a_scenario_the_baseline_does_not_list_is_exit_1(tmp_path: Path) -> None:
    code, report, _ = run_certify(
        "--scenario", scenario(CORE), "--scenario", scenario(ANOTHER_CORE), "--baseline",
        baseline(tmp_path, {"scenario": CORE}), fault="rewrites_history")
    assert code == 1
    checks = statuses(report)
    assert checks[CORE]["append-only"] == "expected-fail"
    assert checks[ANOTHER_CORE]["append-only"] == "fail"


def test_a_baseline_entry_for_a_check_that_passes_now_is_exit_1(tmp_path: Path) -> None:
    code, report, _ = run_certify(
        "--scenario", scenario(CORE), "--baseline",
        baseline(tmp_path, {"scenario": CORE, "check": "append-only"}))
    assert code == 1
    assert report["certified"] is True
    assert report["scenarios"][0]["stale_baseline"] == ["append-only"]


def test_a_baseline_entry_for_a_whole_scenario_that_passes_now_is_exit_1(
        tmp_path: Path) -> None:
    code, report, _ = run_certify("--scenario", scenario(CORE), "--baseline",
                                  baseline(tmp_path, {"scenario": CORE}))
    assert code == 1
    assert report["scenarios"][0]["stale_baseline"] == ["*"]


def test_a_baseline_entry_for_a_skipped_scenario_is_not_stale(tmp_path: Path) -> None:
    """A skipped scenario was not run: its entry cannot be said to pass now."""
    code, report, stderr = run_certify(
        "--scenario", scenario(CORE), "--scenario", scenario("ask-timeout"),
        "--describe", declaration(tmp_path), "--baseline",
        baseline(tmp_path, {"scenario": "ask-timeout"}))
    assert code == 0, stderr
    skipped = {s["scenario"]: s for s in report["scenarios"] if "skipped" in s}
    assert list(skipped) == ["ask-timeout"]
    assert "stale_baseline" not in skipped["ask-timeout"]


def test_a_skipped_result_has_no_stale_entry_even_when_it_carries_the_baseline() -> None:
    """The command gives a skipped scenario's result no baseline entries at all; a result
    that does carry them is still not stale, since nothing was run."""
    skipped = ScenarioResult(ScenarioResult.skip(load_scenario(SCENARIOS / f"{CORE}.json"),
                                                 "x").run, [], {"*": "known"}, skipped="x")
    assert skipped.stale == []
    assert Certification("r", "core", [skipped], baseline="b.json").regressed is False


# -- skips -------------------------------------------------------------------------------


def declaration(tmp_path: Path, **members: Any) -> str:
    """A declaration of profile strict that names no knob: scenarios that set one are
    skipped."""
    path = tmp_path / "caps.json"
    path.write_text(json.dumps({"teamwire": "1.0", "profile": "strict", **members}),
                    encoding="utf-8")
    return str(path)


def test_a_skipped_scenario_is_neither_passed_nor_failed(tmp_path: Path) -> None:
    code, report, stderr = run_certify("--scenario", scenario(CORE), "--scenario",
                                       scenario("ask-timeout"), "--describe",
                                       declaration(tmp_path))
    assert code == 0, stderr
    assert report["certified"] is True
    [skipped] = [s for s in report["scenarios"] if "skipped" in s]
    assert skipped["scenario"] == "ask-timeout"
    assert "declares no ask_timeout knob" in skipped["skipped"]
    assert skipped["passed"] is False and skipped["checks"] == []


def test_a_skipped_scenario_does_not_hide_a_failure(tmp_path: Path) -> None:
    code, report, _ = run_certify("--scenario", scenario(CORE), "--scenario",
                                  scenario("ask-timeout"), "--describe", declaration(tmp_path),
                                  fault="rewrites_history")
    assert code == 1
    assert report["certified"] is False


def test_only_skipped_scenarios_is_exit_2_with_the_reason(tmp_path: Path) -> None:
    code, report, stderr = run_certify("--scenario", scenario("ask-timeout"), "--describe",
                                       declaration(tmp_path))
    assert code == 2
    assert report == {}
    assert "no scenario of level core can be run against the router as declared" in stderr
    assert "declares no ask_timeout knob" in stderr


def test_a_certification_of_skipped_scenarios_alone_is_not_certified() -> None:
    """The command stops such a run before it (exit 2); the report's own rule holds too:
    at least one scenario must have run."""
    skipped = ScenarioResult.skip(load_scenario(SCENARIOS / f"{CORE}.json"), "not declared")
    certification = Certification("r", "core", [skipped])
    assert certification.certified is False
    assert certification.exit_code() == 1


def test_a_skipped_check_of_an_undeclared_feature_does_not_fail(tmp_path: Path) -> None:
    """Declared, send-delivery left out fails; not declared, the same router is certified
    and the check says it was not checked (TW-CERT-016)."""
    code, report, _ = run_certify("--scenario", scenario(ANOTHER_CORE), "--describe",
                                  declaration(tmp_path, features=["send-delivery"]),
                                  fault="drops_delivery")
    assert code == 1
    assert statuses(report)[ANOTHER_CORE]["feature send-delivery"] == "fail"
    code, report, stderr = run_certify("--scenario", scenario(ANOTHER_CORE), "--describe",
                                       declaration(tmp_path), fault="drops_delivery")
    assert code == 0, stderr
    assert report["certified"] is True
    assert statuses(report)[ANOTHER_CORE]["feature send-delivery"] == "skip"


# -- levels ------------------------------------------------------------------------------


def ran(report: dict[str, Any]) -> list[str]:
    return [s["scenario"] for s in report["scenarios"] if "skipped" not in s]


def test_a_level_runs_its_scenarios_and_those_of_the_levels_before_it() -> None:
    given = ["--scenario", scenario(CORE), "--scenario", scenario(DURABLE), "--scenario",
             scenario(ASTRION)]
    code, report, stderr = run_certify(*given, "--level", "core")
    assert code == 0, stderr
    assert report["level"] == "core"
    assert [s["scenario"] for s in report["scenarios"]] == [CORE]
    code, report, stderr = run_certify(*given, "--level", "durable")
    assert code == 0, stderr
    assert [s["scenario"] for s in report["scenarios"]] == [CORE, DURABLE]
    # the default: every level with a scenario for the router's profile (TW-CERT-024)
    code, report, stderr = run_certify(*given)
    assert code == 0, stderr
    assert (report["level"], report["level_requested"]) == ("durable", False)
    assert ran(report) == [CORE, DURABLE]
    code, report, stderr = run_certify(*given, "--level", "astrion")
    # the reference router declares profile strict: the astrion scenario is skipped, and
    # level astrion, none of whose scenarios ran, is not claimed (TW-CERT-023)
    assert code == 1, stderr
    assert ran(report) == [CORE, DURABLE] and report["certified_level"] == "durable"
    [skipped] = [s for s in report["scenarios"] if "skipped" in s]
    assert skipped["scenario"] == ASTRION
    assert "written for profile astrion" in skipped["skipped"]


def test_a_failure_of_a_higher_level_does_not_count_at_a_lower_one() -> None:
    given = ["--scenario", scenario(CORE), "--scenario", scenario(DURABLE)]
    code, _, stderr = run_certify(*given, "--level", "core", fault="forgets_after_restart")
    assert code == 0, stderr
    code, report, _ = run_certify(*given, fault="forgets_after_restart")  # durable too
    assert code == 1
    assert statuses(report)[DURABLE]["restored-conversation"] == "fail"
    assert report["certified_level"] == "core"


def test_no_scenario_of_the_level_is_exit_2() -> None:
    code, report, stderr = run_certify("--scenario", scenario(DURABLE), "--level", "core")
    assert code == 2
    assert report == {}
    assert "no scenario of level core to run" in stderr


@pytest.mark.parametrize(("content", "message"), [
    ('{"expected": []}', "the baseline needs an 'expected_failures' array"),
    ("[]", "the baseline needs an 'expected_failures' array"),
    ('{"expected_failures": [{"scenario": "x"}]}',
     "expected_failures[0] needs a 'scenario' and a 'reason'"),
    ('{"expected_failures": [{"scenario": "x", "reason": "r", "check": 1}]}',
     "expected_failures[0].check must be a string"),
], ids=["no-array", "not-an-object", "no-reason", "check-not-text"])
def test_a_malformed_baseline_is_refused_with_what_is_wrong(tmp_path: Path, content: str,
                                                          message: str) -> None:
    path = tmp_path / "baseline.json"
    path.write_text(content, encoding="utf-8")
    code, report, stderr = run_certify("--scenario", scenario(CORE), "--baseline", str(path))
    assert (code, report) == (2, {})
    assert f"error: {path}: {message}\n" in stderr
