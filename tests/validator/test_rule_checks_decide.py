"""Findings about the input and across conversations are made by the checks beside their
rules: the engine and the session checker only find facts, and a rule the registry does not
hold cannot be reported."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest
from conformance.sources.transcripts.vector_runner import run_case

from teamwire.validator import REGISTRY, Severity
from teamwire.validator.emitter import Emitter, Policy, UnregisteredRule
from teamwire.validator.facts import FACT_TYPES
from teamwire.validator.registry import Check, Rule, Trigger

ROOT = Path(__file__).resolve().parents[2]
CASES = [case for path in sorted((ROOT / "conformance" / "transcripts").glob("*.json"))
         for case in json.loads(path.read_text(encoding="utf-8"))]
# Rules whose every finding comes from a check of a fact the engine or the session
# checker hands out (TW301 and TW606 are also checked message by message).
OWN = {rule.code for rule in REGISTRY if rule.scope in ("file", "bundle")}


def _without_cold_checks(monkeypatch: pytest.MonkeyPatch) -> None:
    """Leave the checks of the facts found in a file or a session out; the per-message
    facts keep theirs."""
    kept = REGISTRY.checks_of

    def checks_of(fact: type) -> tuple[Check[Any], ...]:
        return kept(fact) if fact in FACT_TYPES else ()
    monkeypatch.setattr(REGISTRY, "checks_of", checks_of)


def test_vectors_expect_file_and_session_findings() -> None:
    # The test below means something only if the vectors hold such findings.
    expected = {e["rule"] for case in CASES for e in case["expected"]}
    assert {"TW001", "TW003", "TW006", "TW007", "TW303", "TW501", "TW505", "TW511",
            "TW512"} <= expected


def test_without_their_checks_the_engine_and_session_checker_find_nothing(
        monkeypatch: pytest.MonkeyPatch) -> None:
    _without_cold_checks(monkeypatch)
    for case in CASES:
        found = {f.rule for f in run_case(case).findings}
        assert not found & OWN, (case["description"], sorted(found & OWN))


def test_an_unreadable_input_is_reported_by_its_rule(monkeypatch: pytest.MonkeyPatch) -> None:
    from teamwire.validator.engine import unreadable
    report = unreadable("missing.json", "cannot read missing.json: no such file")
    assert [(f.rule, f.severity, f.message) for f in report.findings] == [
        ("TW010", Severity.ERROR, "cannot read missing.json: no such file")]
    _without_cold_checks(monkeypatch)
    assert unreadable("missing.json", "gone").findings == []


def test_emitting_a_rule_the_registry_does_not_hold_raises() -> None:
    everything = Policy(frozenset(REGISTRY.codes()) | {"TW099"},
                        {**{r.code: r.severity for r in REGISTRY}, "TW099": Severity.ERROR})
    stray = Rule("TW099", "stray-rule", Severity.ERROR, "Not registered.", (), "", "", "")
    with pytest.raises(UnregisteredRule):
        Emitter("x.json", everything).emit(stray, "a finding nobody can select")
    # A copy of a registered rule is not that rule either.
    copy = dataclasses.replace(REGISTRY["TW505"], summary="Changed.")
    with pytest.raises(UnregisteredRule):
        Emitter("x.json", everything).emit(copy, "a finding of a look-alike rule")


def test_a_check_of_an_unregistered_rule_cannot_be_added() -> None:
    stray = Rule("TW099", "stray-rule", Severity.ERROR, "Not registered.", (), "", "", "")
    with pytest.raises(ValueError, match="unregistered rule TW099"):
        REGISTRY.add_check(Check(stray, FACT_TYPES[0], lambda fact, report: None,
                                 Trigger(prefixes=("x",))))
