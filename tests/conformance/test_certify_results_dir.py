"""``teamwire certify --results DIR``: per scenario as it ends, its checks, every model call
with the answer it got, and what the router wrote to standard output and standard error."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from click.testing import CliRunner

from teamwire import schemas
from teamwire.cli import main

ROOT = Path(__file__).resolve().parents[2]
SCENARIOS = ROOT / "conformance" / "scenarios"
BROKEN = f"{ROOT / 'tests' / 'conformance' / 'routers' / 'broken_inprocess.py'}:drop_inline"


def scenario_args(*names: str) -> list[str]:
    return [arg for name in names for arg in ("--scenario", str(SCENARIOS / f"{name}.json"))]


def report_entry_is_valid(entry: dict[str, object]) -> bool:
    report = {"teamwire": "0", "router": "r", "level": "core", "certified": False,
              "scenarios": [entry]}
    return schemas.validate("certification-report", report) == []


def test_each_scenario_gets_its_checks_and_calls(tmp_path: Path) -> None:
    out = tmp_path / "results"
    result = CliRunner().invoke(main, ["certify", "--in-process", BROKEN, "--level", "core",
                                       *scenario_args("batch-drain", "leader-asks-a-sub-agent"),
                                       "--results", str(out), "-f", "json"])
    assert result.exit_code == 1, result.output
    report = json.loads(result.stdout)
    assert sorted(p.name for p in out.iterdir()) == ["batch-drain", "leader-asks-a-sub-agent"]
    for entry in report["scenarios"]:
        folder = out / entry["scenario"]
        checks = json.loads((folder / "checks.json").read_text(encoding="utf-8"))
        assert checks == entry and report_entry_is_valid(checks)
        calls = json.loads((folder / "calls.json").read_text(encoding="utf-8"))
        assert calls and calls[0]["agent"] == "Team Leader" and calls[0]["call"] == 1
        assert calls[0]["messages"][-1]["role"] == "user"
        assert "create_sub_agent" in calls[0]["tools"]
        assert all(("reply" in c) or c.get("failed") or c.get("unanswered")
                   or c.get("abandoned") for c in calls)
        assert [c["seconds"] for c in calls] == sorted(c["seconds"] for c in calls)
        # in process the router writes nothing of its own
        assert (folder / "stdout.txt").read_bytes() == b""
    assert not report["scenarios"][0]["passed"] or not report["scenarios"][1]["passed"]


def test_a_router_run_as_a_process_has_its_two_streams_kept_apart(tmp_path: Path) -> None:
    out = tmp_path / "results"
    result = CliRunner().invoke(main, ["certify", "--router", f"{sys.executable} -m teamwire run",
                                       *scenario_args("batch-drain"), "--results", str(out)])
    assert result.exit_code == 0, result.output
    folder = out / "batch-drain"
    # teamwire run says each delivery on standard output and nothing on standard error
    assert "Team Leader → " in (folder / "stdout.txt").read_text(encoding="utf-8")
    assert (folder / "stderr.txt").read_bytes() == b""
    assert json.loads((folder / "checks.json").read_text(encoding="utf-8"))["passed"]


def test_a_results_directory_that_cannot_be_made_is_a_usage_error(tmp_path: Path) -> None:
    taken = tmp_path / "taken"
    taken.write_text("a file", encoding="utf-8")
    result = CliRunner().invoke(main, ["certify", "--in-process", *scenario_args("batch-drain"),
                                       "--results", str(taken / "sub")])
    assert result.exit_code == 2
    assert "cannot make the results directory" in result.output
    assert "Traceback" not in result.output


def test_lone_surrogates_a_router_sent_are_written_as_json_escapes(tmp_path: Path) -> None:
    """A router may send text no UTF-8 can hold; its checks and calls are written all the
    same, each lone surrogate as a JSON escape that reads back as what the router sent."""
    from teamwire.conformance.checks import Status, Verdict
    from teamwire.conformance.endpoint import ModelCall
    from teamwire.conformance.report import ScenarioResult
    from teamwire.conformance.results_dir import CALLS_FILE, CHECKS_FILE, write_scenario
    from teamwire.conformance.runner import Run
    from teamwire.conformance.scenario import load_scenario

    sent = "half a pair \ud83d"
    call = ModelCall("Team Leader", 1, [{"role": "user", "content": sent}], [], False, 2.5)
    run = Run(load_scenario(SCENARIOS / "batch-drain.json"), [call], [], [])
    result = ScenarioResult(run, [Verdict("append-only", Status.FAIL, ("TW-CERT-007",), sent)])
    folder = write_scenario(result, tmp_path)
    [written] = json.loads((folder / CALLS_FILE).read_text(encoding="utf-8"))
    assert written["messages"] == [{"role": "user", "content": sent}]
    assert written["seconds"] == 0.0
    checks = json.loads((folder / CHECKS_FILE).read_text(encoding="utf-8"))
    assert checks["checks"][0]["reason"] == sent
