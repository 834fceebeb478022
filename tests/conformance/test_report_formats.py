"""The certification report formats, written in process: the JSON entry of a scenario, the
JUnit XML a CI system parses (whatever the router sent), and the Markdown summary.

The command-line tests check the same formats through ``teamwire certify`` in a process of
its own; these write a ``Certification`` built here, so that a mistake in the writers shows
in the test process (where mutation testing changes the code).
"""

from __future__ import annotations

import io
import json
from pathlib import Path
from xml.etree import ElementTree

from teamwire.conformance.checks import Status, Verdict
from teamwire.conformance.report import (
    Certification,
    FuzzSummary,
    ScenarioResult,
    write_json,
    write_junit,
    write_markdown,
)
from teamwire.conformance.runner import Run
from teamwire.conformance.scenario import load_scenario

ROOT = Path(__file__).resolve().parents[2]
SCENARIOS = ROOT / "conformance" / "scenarios"
HOSTILE = "bad \x00 nul, \x1b escape, \ud800 lone surrogate, \uffff non-character"
"""A reason holding characters XML 1.0 cannot carry (a router may put anything in a
message, and a check's reason quotes it)."""


def _run(name: str, seconds: float) -> Run:
    run = Run(load_scenario(SCENARIOS / f"{name}.json"), [], [], [])
    run.seconds = seconds
    return run


def certification() -> Certification:
    passed = ScenarioResult(_run("batch-drain", 1.23456),
                            [Verdict("append-only", Status.PASS, ("TW-CERT-007",))])
    failed = ScenarioResult(_run("task-to-idle-sub-agent", 0.5), [
        Verdict("append-only", Status.PASS, ("TW-CERT-007",)),
        Verdict("expected-messages", Status.FAIL, ("TW-TOOL-001",), HOSTILE,
                expected={"role": "user"}, received={"role": "tool"})])
    return Certification("node router.js", "core", [passed, failed],
                         fuzz=FuzzSummary(3, 11, "core"))


def test_the_json_entry_of_a_scenario_rounds_its_time_and_keeps_what_a_check_said() -> None:
    stream = io.StringIO()
    write_json(certification(), stream)
    report = json.loads(stream.getvalue())
    passed, failed = report["scenarios"]
    assert passed["seconds"] == 1.235
    assert passed["checks"] == [{"check": "append-only", "status": "pass",
                                 "requirements": ["TW-CERT-007"]}]
    assert failed["checks"][1] == {
        "check": "expected-messages", "status": "fail", "requirements": ["TW-TOOL-001"],
        "reason": HOSTILE, "expected": {"role": "user"}, "received": {"role": "tool"}}


def test_junit_is_well_formed_xml_whatever_the_router_sent() -> None:
    stream = io.StringIO()
    write_junit(certification(), stream)
    written = stream.getvalue()
    assert written.startswith('<?xml version="1.0" encoding="UTF-8"?>\n')
    suites = ElementTree.fromstring(written.encode("utf-8"))
    [suite] = suites
    assert suite.get("name") == "level core"
    [properties, *cases] = suite
    [fuzz] = properties
    assert (fuzz.get("name"), fuzz.get("value")) == ("fuzz", FuzzSummary(3, 11, "core").line())
    assert [(c.get("name"), c.get("time")) for c in cases] == [
        ("batch-drain", "1.235"), ("task-to-idle-sub-agent", "0.500")]
    assert list(cases[0]) == []
    assert [e.tag for e in suites.iter() if (e.tail or "").strip()] == []  # nothing stray
    [failure] = cases[1]
    replaced = ("bad \ufffd nul, \ufffd escape, \ufffd lone surrogate, "
                "\ufffd non-character")
    assert failure.get("message") == f"expected-messages [TW-TOOL-001]: {replaced}"
    assert failure.text == (f"expected-messages [TW-TOOL-001]: {replaced}\n"
                            'expected: {"role": "user"}\nreceived: {"role": "tool"}')


def test_junit_keeps_every_character_xml_can_hold() -> None:
    kept = "tab\tnewline\n é ✓ \ue000 \ufffd \U0001f600 end"
    run = _run("batch-drain", 0.0)
    result = ScenarioResult(run, [Verdict("append-only", Status.FAIL, ("TW-CERT-007",), kept)])
    stream = io.StringIO()
    write_junit(Certification("router", "core", [result]), stream)
    [suite] = ElementTree.fromstring(stream.getvalue().encode("utf-8"))
    [case] = suite
    [failure] = case
    assert failure.text == f"append-only [TW-CERT-007]: {kept}"


def test_markdown_gives_each_level_its_verdict_and_each_scenario_its_result() -> None:
    stream = io.StringIO()
    write_markdown(certification(), stream)
    lines = stream.getvalue().splitlines()
    [core] = [line for line in lines if line.startswith("| core |")]
    assert core.startswith("| core | not certified: ")
    assert "| batch-drain | pass |  |" in lines
    assert "| task-to-idle-sub-agent | fail | TW-TOOL-001 |" in lines
