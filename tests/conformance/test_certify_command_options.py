"""The everyday options of ``teamwire certify``, run in process: ``--list`` names what would
run without starting a router, ``-x`` stops at the first failure, and each scenario's result
is said as it ends (the text report on standard output, a line on standard error beside any
other report)."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from teamwire.cli import main

ROOT = Path(__file__).resolve().parents[2]
SCENARIOS = ROOT / "conformance" / "scenarios"
BROKEN = f"{ROOT / 'tests' / 'conformance' / 'routers' / 'broken_inprocess.py'}:drop_inline"


def scenario_args(*names: str) -> list[str]:
    return [arg for name in names for arg in ("--scenario", str(SCENARIOS / f"{name}.json"))]


def test_list_names_every_selected_scenario_and_what_would_be_skipped() -> None:
    result = CliRunner().invoke(main, ["certify", "--list"])
    assert result.exit_code == 0, result.output
    listed = [line.split("\t") for line in result.stdout.splitlines() if "\t" in line]
    # without --level, the levels of profile strict: every scenario but the astrion ones
    assert sorted(row[0] for row in listed) == sorted(
        p.stem for p in SCENARIOS.glob("*.json") if not p.stem.startswith("astrion-"))
    everything = CliRunner().invoke(main, ["certify", "--list", "--level", "astrion"])
    assert len([line for line in everything.stdout.splitlines() if "\t" in line]) == len(
        list(SCENARIOS.glob("*.json")))
    rows = {row[0]: row for row in listed}
    assert rows["batch-drain"][1:4] == ["core", "strict", "-"]
    assert rows["restart-with-a-queued-message"][1] == "durable"
    assert rows["model-call-retried"][3] == "model_retries=2"
    lines = result.stdout.splitlines()
    after = lines[lines.index(next(line for line in lines
                                   if line.startswith("model-call-retried\t"))) + 1]
    assert after.startswith("  would be skipped: the router declares no model_retries knob")


def test_exitfirst_stops_after_the_first_failed_scenario() -> None:
    """ambiguous-agent-id passes, batch-drain fails (the router drops inline
    messages), task-to-idle-sub-agent is never run."""
    args = scenario_args("ambiguous-agent-id", "batch-drain", "task-to-idle-sub-agent")
    result = CliRunner().invoke(main, ["certify", "--in-process", BROKEN, *args, "-x",
                                       "-f", "json"])
    assert result.exit_code == 1, result.output
    report = json.loads(result.stdout)
    assert [(s["scenario"], s["passed"]) for s in report["scenarios"]] == [
        ("ambiguous-agent-id", True), ("batch-drain", False)]
    assert "stopped after the first failure (-x): 1 scenarios not run" in result.stderr
    # one progress line per scenario run, on standard error beside the JSON report
    assert "[1/3] PASS ambiguous-agent-id" in result.stderr
    assert "[2/3] FAIL batch-drain" in result.stderr
    without = CliRunner().invoke(main, ["certify", "--in-process", BROKEN, *args, "-f", "json"])
    assert len(json.loads(without.stdout)["scenarios"]) == 3


def test_the_text_report_is_the_results_in_order_then_the_verdict(tmp_path: Path) -> None:
    args = scenario_args("ambiguous-agent-id", "batch-drain")
    result = CliRunner().invoke(main, ["certify", "--in-process", BROKEN, *args])
    assert result.exit_code == 1
    lines = result.stdout.splitlines()
    assert lines[0].startswith("PASS ambiguous-agent-id (")
    assert lines[1].startswith("FAIL batch-drain (")
    assert lines[-1] == "not certified at level core: 1 check failed in 1 scenario of 2"
    assert "[1/2]" not in result.stderr  # the report itself is the progress
    out = tmp_path / "report.txt"
    written = CliRunner().invoke(main, ["certify", "--in-process", BROKEN, *args,
                                        "-o", str(out)])
    assert out.read_text(encoding="utf-8").splitlines() == lines
    assert written.stderr.splitlines()[-1] == lines[-1]  # the verdict, said where it is seen


def test_a_router_that_cannot_be_started_gets_one_error_with_a_hint() -> None:
    """Not a cascade of missing model calls: the contract check alone, saying where to look."""
    result = CliRunner().invoke(main, ["certify", "--router", "no-such-router-anywhere --fast",
                                       *scenario_args("batch-drain"), "-f", "json"])
    assert result.exit_code == 2
    [scenario] = json.loads(result.stdout)["scenarios"]
    [contract] = scenario["checks"]
    assert contract["check"] == "contract" and contract["status"] == "fail"
    assert "'no-such-router-anywhere' is not on PATH: give its full path" in contract["reason"]


RETRYING = ROOT / "tests" / "conformance" / "routers" / "retrying_inprocess.py"


def test_a_reply_that_fails_every_try_needs_no_knob_and_allows_three_tries() -> None:
    """TW-CERT-025: whatever number of tries up to three the router makes, each fails and the
    router gives up; a fourth try of the same request is a call too many (TW-ROUTE-031)."""
    args = scenario_args("sub-agent-model-call-given-up")
    for factory in ("teamwire.conformance.inprocess:reference_router",
                    f"{RETRYING}:three_tries"):
        result = CliRunner().invoke(main, ["certify", "--in-process", factory, *args])
        assert result.exit_code == 0, result.output
    result = CliRunner().invoke(main, ["certify", "--in-process", f"{RETRYING}:four_tries",
                                       *args, "-f", "json"])
    assert result.exit_code == 1
    checks = json.loads(result.stdout)["scenarios"][0]["checks"]
    [calls] = [c for c in checks if c["check"] == "model-calls"]
    assert calls["status"] == "fail" and "UI Operator_1" in calls["reason"]
