"""Level astrion: the scenarios of profile astrion certify a router of that profile (the
router written from the specification, started with ``--profile astrion``), are skipped with
the reason, never passed, for a router of profile strict, and fail a router of profile
astrion that makes a mistake of that profile with the requirements the scenario checks."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from teamwire import schemas
from tests.conformance.reports import what_failed

ROOT = Path(__file__).resolve().parents[2]
SCENARIOS = ROOT / "conformance" / "scenarios"
MINI = ROOT / "tests" / "conformance" / "routers" / "mini_router.py"
ASTRION_ROUTER = f"{sys.executable} {MINI} --profile astrion"
NATIVE_ROUTER = f"{sys.executable} {MINI} --native-forms"


def level_of(path: Path) -> str:
    return str(json.loads(path.read_text(encoding="utf-8"))["level"])


ASTRION = sorted(p.stem for p in SCENARIOS.glob("*.json") if level_of(p) == "astrion")


def teamwire(*args: str, env: dict[str, str] | None = None) -> tuple[int, Any, str]:
    result = subprocess.run([sys.executable, "-m", "teamwire", *args], capture_output=True,
                            text=True, timeout=300, env={**os.environ, **(env or {})},
                            check=False)
    assert "Traceback" not in result.stderr, result.stderr
    return result.returncode, json.loads(result.stdout) if result.stdout.strip() else {}, \
        result.stderr


@pytest.fixture
def declaration(tmp_path: Path) -> str:
    """The capability declaration the router prints in profile astrion."""
    printed = subprocess.run([sys.executable, str(MINI), "--profile", "astrion", "--describe"],
                             capture_output=True, text=True, timeout=60, check=True).stdout
    assert json.loads(printed)["profile"] == "astrion"
    path = tmp_path / "mini-astrion.json"
    path.write_text(printed, encoding="utf-8")
    return str(path)


def test_there_are_astrion_scenarios_and_each_is_written_for_profile_astrion() -> None:
    assert len(ASTRION) >= 5
    for name in ASTRION:
        data = json.loads((SCENARIOS / f"{name}.json").read_text(encoding="utf-8"))
        assert data["profile"] == "astrion"
        assert any(r.startswith("TW-PROF-") for r in data["requirements"])


CORE = sorted(p.stem for p in SCENARIOS.glob("*.json") if level_of(p) == "core")


def scenario_args(*names: str) -> list[str]:
    return [arg for name in names for arg in ("--scenario", str(SCENARIOS / f"{name}.json"))]


def test_a_router_of_profile_astrion_is_certified_at_level_astrion(declaration: str) -> None:
    """It passes every astrion scenario and every core scenario that can be put in astrion's
    forms (TW-CERT-028); the others are skipped with the reason, never passed. The mini
    router keeps no durable state, so the durable scenarios are not given it here: the
    level is then not judged, and not claimed."""
    code, report, stderr = teamwire("certify", "--router", ASTRION_ROUTER, "--level", "astrion",
                                    "--describe", declaration, "--wait", "3", "-f", "json",
                                    *scenario_args(*CORE, *ASTRION))
    assert code == 0, what_failed(report) + "\n" + stderr
    assert report["certified"] is True and report["level"] == "astrion"
    assert schemas.validate("certification-report", report) == []
    # core is judged now: its scenarios run in astrion's forms
    assert [(v["level"], v["certified"], v["judged"]) for v in report["levels"]] == [
        ("core", True, True), ("durable", False, False), ("astrion", True, True)]
    ran = {s["scenario"]: s for s in report["scenarios"] if "skipped" not in s}
    assert set(ASTRION) < set(ran)
    core_ran = sorted(set(ran) - set(ASTRION))
    assert len(core_ran) >= 30
    for result in ran.values():
        assert result["passed"]
        for check in result["checks"]:
            # what astrion's texts do not carry is said, as not compared (TW-CERT-034)
            assert check["status"] == "pass" or (
                check["check"] == "astrion-result-texts" and check["status"] == "skip"
                and "not compared" in check["reason"]), check
    for name in core_ran:
        assert "TW-CERT-028" in ran[name]["requirements"]
    skipped = {s["scenario"]: s["skipped"] for s in report["scenarios"] if "skipped" in s}
    assert sorted([*ran, *skipped]) == sorted([*CORE, *ASTRION])
    assert "the router declares profile" not in " ".join(skipped.values())
    not_applicable = {n for n, why in skipped.items() if "TW-CERT-035" in why}
    assert {"ask-blocks-later-calls", "ambiguous-agent-id", "message-between-sub-agents",
            "terminated-sub-agent-not-listed", "refused-calls"} <= not_applicable
    assert "asks a sub-agent, which astrion's Team Leader has no tool for (TW-PROF-017)" \
        in skipped["ask-blocks-later-calls"]
    assert all(s["passed"] is False for s in report["scenarios"] if "skipped" in s)


def test_a_router_of_profile_astrion_is_judged_at_durable_too(declaration: str) -> None:
    """The durable scenarios run against it in astrion's forms: the mini router, which
    keeps no state across a restart, fails them, as it does in profile strict."""
    code, report, stderr = teamwire("certify", "--router", ASTRION_ROUTER, "--level", "durable",
                                    "--describe", declaration, "--wait", "3", "-f", "json",
                                    *scenario_args("task-to-idle-sub-agent",
                                                   "ids-after-a-restart"))
    assert code == 1, stderr
    assert [(v["level"], v["certified"], v["judged"]) for v in report["levels"]] == [
        ("core", True, True), ("durable", False, True)]
    [durable] = [s for s in report["scenarios"] if s["scenario"] == "ids-after-a-restart"]
    assert "restored-conversation" in {c["check"] for c in durable["checks"]
                                       if c["status"] == "fail"}


def test_only_scenarios_that_cannot_be_put_in_astrions_forms_cannot_be_judged(
        declaration: str) -> None:
    code, _report, stderr = teamwire("certify", "--router", ASTRION_ROUTER, "--level", "core",
                                     "--describe", declaration, "-f", "json",
                                     *scenario_args("leader-asks-a-sub-agent"))
    assert code == 2
    assert "the scenario is written for profile strict and cannot be put" in stderr
    assert "asks a sub-agent, which astrion's Team Leader has no tool for (TW-PROF-017)" \
        in stderr


def test_the_texts_astrion_gives_are_compared_by_what_they_carry(declaration: str) -> None:
    """answer_other_agent's 回复已发送。 ("reply sent") and ask_other_agent's 子智能体的回答：
    ("the sub-agent's answer:") with the answer pass a core scenario's expectations; what the
    texts do not carry is reported not compared; an answer given as an envelope instead
    fails the expectation (TW-CERT-034)."""
    scenario = "ask-between-sub-agents-and-round-limit"
    code, report, stderr = teamwire("certify", "--router", ASTRION_ROUTER, "--level", "core",
                                    "--describe", declaration, "--wait", "3", "-f", "json",
                                    *scenario_args(scenario))
    assert code == 0, what_failed(report) + "\n" + stderr
    [result] = report["scenarios"]
    [said] = [c for c in result["checks"] if c["check"] == "astrion-result-texts"]
    assert said["status"] == "skip" and said["requirements"] == ["TW-CERT-034"]
    assert "answer_other_agent result call_fse_1" in said["reason"]
    assert "not display_name, message_id" in said["reason"]
    assert "not the Answer's sender, id and question_id" in said["reason"]
    code, report, stderr = teamwire("certify", "--router", ASTRION_ROUTER, "--level", "core",
                                    "--describe", declaration, "--wait", "3", "-f", "json",
                                    *scenario_args(scenario),
                                    env={"MINI_ROUTER_FAULT": "answer-envelope"})
    assert code == 1, stderr
    [result] = report["scenarios"]
    failed = [c for c in result["checks"] if c["status"] == "fail"]
    assert [c["check"] for c in failed] == ["UI Operator_1 call 2"]
    assert "TW-CERT-028" in failed[0]["requirements"]


def test_a_router_of_profile_strict_is_not_certified_at_level_astrion() -> None:
    """The reference router declares profile strict: asked for level astrion, it passes core
    and durable, each astrion scenario is reported skipped with the reason, and level
    astrion, none of whose scenarios ran, is not claimed (TW-CERT-023): exit 1."""
    code, report, stderr = teamwire("certify", "--in-process", "--level", "astrion", "-f", "json")
    assert code == 1, what_failed(report) + "\n" + stderr
    assert report["certified"] is False and report["certified_level"] == "durable"
    astrion = report["levels"][-1]
    assert astrion["level"] == "astrion" and astrion["judged"] is True
    assert astrion["scenarios_run"] == 0 and astrion["scenarios_skipped"] == len(ASTRION)
    assert "written for profile astrion" in astrion["reason"]
    skipped = {s["scenario"]: s for s in report["scenarios"] if "skipped" in s}
    assert sorted(skipped) == ASTRION
    for result in skipped.values():
        assert "written for profile astrion; the router declares profile strict" \
            in result["skipped"]
        assert result["passed"] is False and result["checks"] == []
    assert all(s["passed"] for s in report["scenarios"] if "skipped" not in s)


def test_a_router_of_profile_strict_given_only_astrion_scenarios_cannot_be_judged() -> None:
    """Nothing of the level can run: exit 2 with the reason, not a certificate."""
    paths = [arg for name in ASTRION for arg in ("--scenario", str(SCENARIOS / f"{name}.json"))]
    code, _report, stderr = teamwire("certify", "--in-process", "--level", "astrion", *paths,
                                     "-f", "json")
    assert code == 2
    assert "no scenario of level astrion can be run" in stderr
    assert "declares profile strict" in stderr


def requirements_of(scenario: str) -> tuple[str, ...]:
    data = json.loads((SCENARIOS / f"{scenario}.json").read_text(encoding="utf-8"))
    return tuple(sorted(data["requirements"]))


@pytest.mark.parametrize(("fault", "scenario", "broken", "failed_checks"), [
    pytest.param("exact-names", "astrion-display-names", "TW-PROF-026",
                 ["model-calls", "Team Leader call 6", "UI Operator_2 call 2",
                  "Team Leader call 7"], id="a-name-in-other-case-names-nobody"),
    pytest.param("answer-envelope", "astrion-ask-master", "TW-PROF-028",
                 ["Full-Stack Engineer_1 call 2"], id="an-answer-as-an-envelope-to-ask-master"),
    pytest.param("answer-envelope", "astrion-ask-other-agent", "TW-PROF-028",
                 ["UI Operator_1 call 2"], id="an-answer-as-an-envelope-to-ask-other-agent"),
    pytest.param("stop-drops-queue", "astrion-stop-sub-agent", "TW-PROF-035",
                 ["UI Operator_1 call 2"], id="a-stop-empties-the-queue"),
    pytest.param("stop-leaves-ask", "astrion-stop-sub-agent", "TW-PROF-038",
                 ["UI Operator_1 call 2"], id="a-stop-leaves-the-cancelled-ask-without-a-result"),
    pytest.param("stop-leaves-ask", "astrion-status-by-number", "TW-PROF-038",
                 ["UI Operator_2 call 2"],
                 id="a-stop-by-number-leaves-the-cancelled-ask-without-a-result"),
    pytest.param("status-drops-unknown", "astrion-status-by-number", "TW-PROF-036",
                 ["Team Leader call 5"], id="status-by-number-leaves-out-an-unknown-number"),
    pytest.param("status-drops-unknown", "astrion-stop-sub-agent", "TW-PROF-036",
                 ["Team Leader call 4"], id="status-by-name-leaves-out-an-unknown-name"),
])
def test_a_router_of_profile_astrion_with_a_mistake_fails_with_the_scenarios_requirements(
        declaration: str, fault: str, scenario: str, broken: str,
        failed_checks: list[str]) -> None:
    code, report, stderr = teamwire(
        "certify", "--router", ASTRION_ROUTER, "--level", "astrion", "--describe", declaration,
        "--scenario", str(SCENARIOS / f"{scenario}.json"), "--wait", "2", "-f", "json",
        env={"MINI_ROUTER_FAULT": fault})
    assert code == 1, stderr
    [result] = report["scenarios"]
    failed = {c["check"]: tuple(sorted(c["requirements"]))
              for c in result["checks"] if c["status"] == "fail"}
    own = requirements_of(scenario)
    assert broken in own
    assert failed == {check: own for check in failed_checks}


def test_a_router_that_keeps_the_reply_of_a_stopped_model_call_fails_with_tw_prof_037(
        declaration: str) -> None:
    """The reply of the call in flight at the stop, appended instead of discarded: the
    sub-agent's next call asks for a reply beyond the script, its history holds the reply
    (check dropped-replies, TW-PROF-037 alone), and what follows goes wrong with it."""
    scenario = "astrion-stop-during-model-call"
    code, report, stderr = teamwire(
        "certify", "--router", ASTRION_ROUTER, "--level", "astrion", "--describe", declaration,
        "--scenario", str(SCENARIOS / f"{scenario}.json"), "--wait", "2", "-f", "json",
        env={"MINI_ROUTER_FAULT": "stop-keeps-reply"})
    assert code == 1, stderr
    [result] = report["scenarios"]
    failed = {c["check"]: c for c in result["checks"] if c["status"] == "fail"}
    assert failed["dropped-replies"]["requirements"] == ["TW-PROF-037"]
    assert "holds the reply to its call 1" in failed["dropped-replies"]["reason"]
    own = requirements_of(scenario)
    assert "TW-PROF-037" in own
    assert {check: tuple(sorted(c["requirements"])) for check, c in failed.items()
            if check != "dropped-replies"} == {
        check: own for check in ("model-calls", "UI Operator_1 call 2", "Team Leader call 5")}
    passed = {c["check"] for c in result["checks"] if c["status"] == "pass"}
    assert {"append-only", "one-result-per-tool-call", "Team Leader call 3",
            "Team Leader call 4"} <= passed


def test_the_same_router_in_profile_astrion_fails_the_strict_scenarios_it_is_not_written_for(
        tmp_path: Path) -> None:
    """Declared strict, the router started in profile astrion offers astrion's tool set, so
    a strict scenario fails it on the tool-set check: the declaration, not the router's
    wishes, decides which scenarios run."""
    declared = tmp_path / "strict.json"
    declared.write_text(json.dumps({"teamwire": "1.0", "profile": "strict"}), encoding="utf-8")
    code, report, stderr = teamwire(
        "certify", "--router", ASTRION_ROUTER, "--describe", str(declared), "--scenario",
        str(SCENARIOS / "task-to-idle-sub-agent.json"), "--wait", "2", "-f", "json")
    assert code == 1, stderr
    failed = {c["check"] for s in report["scenarios"] for c in s["checks"]
              if c["status"] == "fail"}
    assert "tool-set" in failed


def test_a_router_that_writes_astrions_own_envelope_forms_is_certified_at_level_astrion(
        declaration: str) -> None:
    """Header 来自 A 向 B ("from A to B"), target and subtype attributes, label 任务结束汇报
    ("task ended report"): each compared by the meaning profile astrion gives it
    (TW-CERT-027)."""
    code, report, stderr = teamwire("certify", "--router", NATIVE_ROUTER, "--level", "astrion",
                                    "--describe", declaration, "--wait", "3", "-f", "json",
                                    *scenario_args(*CORE, *ASTRION))
    assert code == 0, what_failed(report) + "\n" + stderr
    assert report["certified"] is True
    ran = sorted(s["scenario"] for s in report["scenarios"] if "skipped" not in s)
    assert set(ASTRION) < set(ran) and len(ran) >= len(ASTRION) + 30


def test_an_envelope_in_astrions_form_that_the_profile_finds_invalid_fails(
        declaration: str) -> None:
    """A target attribute naming another sub-agent than the header (TW-PROF-007) is not read
    as the strict form: the Ask the answerer receives differs from the expected one."""
    scenario = "astrion-ask-other-agent"
    code, report, stderr = teamwire(
        "certify", "--router", NATIVE_ROUTER, "--level", "astrion", "--describe", declaration,
        "--scenario", str(SCENARIOS / f"{scenario}.json"), "--wait", "2", "-f", "json",
        env={"MINI_ROUTER_FAULT": "native-target"})
    assert code == 1, stderr
    [result] = report["scenarios"]
    failed = sorted(c["check"] for c in result["checks"] if c["status"] == "fail")
    assert failed == ["Full-Stack Engineer_1 call 2", "Full-Stack Engineer_1 call 4"]
    assert all("TW-CERT-027" in c["requirements"] for c in result["checks"]
               if c["status"] == "fail")


def test_the_router_of_profile_astrion_is_sent_astrions_arguments(
        declaration: str, tmp_path: Path) -> None:
    """What the harness answered the router's model calls with (calls.json of --results):
    astrion's arguments, never the strict agent_id (TW-CERT-028)."""
    scenario = "message-to-running-sub-agent"
    code, report, stderr = teamwire("certify", "--router", ASTRION_ROUTER, "--level", "core",
                                    "--describe", declaration, "--wait", "3", "-f", "json",
                                    "--results", str(tmp_path / "results"),
                                    *scenario_args(scenario))
    assert code == 0, what_failed(report) + "\n" + stderr
    calls = json.loads((tmp_path / "results" / scenario / "calls.json").read_text("utf-8"))
    sent = [(c["function"]["name"], json.loads(c["function"]["arguments"]))
            for call in calls for c in (call["reply"] or {}).get("tool_calls") or ()]
    names = {name for name, _ in sent}
    assert {"create_sub_agent", "send_message_to_sub_agent"} <= names
    assert all("agent_id" not in args for _, args in sent)
    assert ("send_message_to_sub_agent", "UI Operator_1") in {
        (name, args.get("display_name")) for name, args in sent}


def test_fuzzing_a_router_of_profile_astrion_is_a_usage_error(declaration: str) -> None:
    """Generated scenarios are of profile strict, not rewritten: said, not run."""
    code, _report, stderr = teamwire("certify", "--router", ASTRION_ROUTER, "--describe",
                                     declaration, "--fuzz", "1", "-f", "json")
    assert code == 2
    assert "--fuzz draws scenarios of profile strict" in stderr
    assert "router of profile astrion" in stderr
