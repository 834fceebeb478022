"""Every check reports one rule: a rule selected alone finds exactly what it finds among all
the rules, and a check is registered only for a rule registered before."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from conformance.sources.transcripts.vector_runner import run_case

from teamwire.validator import REGISTRY, Severity, facts
from teamwire.validator.dispatch import dispatch, reported
from teamwire.validator.facts import UserText
from teamwire.validator.registry import Check, Rule, check

ROOT = Path(__file__).resolve().parents[2]
CASES = [case for path in sorted((ROOT / "conformance" / "transcripts").glob("*.json"))
         for case in json.loads(path.read_text(encoding="utf-8"))]
# The rules whose checks once shared one function with other rules of their module: each is
# now a check of its own, run only when its rule is on.
ONCE_SHARED = ("TW108", "TW109", "TW110", "TW111", "TW114", "TW116", "TW117", "TW118",
               "TW408", "TW409", "TW410", "TW415", "TW501", "TW502", "TW503", "TW505",
               "TW506", "TW507", "TW508", "TW513")


def test_every_check_is_selected_by_its_rule_alone() -> None:
    kinds = [value for value in vars(facts).values() if isinstance(value, type)]
    for kind in kinds:
        for c in REGISTRY.checks_of(kind):
            assert c.selected(frozenset({c.rule.code}))
            assert not c.selected(frozenset(REGISTRY.codes()) - {c.rule.code})


def test_the_vectors_hold_findings_of_the_rules_once_shared() -> None:
    found = {e["rule"] for case in CASES for e in case["expected"]}
    assert set(ONCE_SHARED) <= found


@pytest.mark.parametrize("code", ONCE_SHARED)
def test_a_rule_alone_finds_what_it_finds_among_all(code: str) -> None:
    every = frozenset(REGISTRY.codes())
    cases = [case for case in CASES if any(e["rule"] == code for e in case["expected"])]
    assert cases
    for case in cases:
        among = [(f.rule, f.agent, f.index, f.pointer, f.message, f.line, f.column)
                 for f in run_case(case, every).findings if f.rule == code]
        alone = [(f.rule, f.agent, f.index, f.pointer, f.message, f.line, f.column)
                 for f in run_case(case, frozenset({code})).findings]
        assert alone == among, case["description"]
        assert among, case["description"]


def test_a_finding_carries_the_rule_of_the_check_that_made_it() -> None:
    # dispatch (the file-level hand-out) tells the reporter each check's rule in turn: the
    # second check's finding is not blamed on the first's rule.
    emitted: list[str] = []

    def emit(rule: Rule, message: str, index: int | None, tail: str = "",
             text: str | None = None, offset: int | None = None) -> None:
        emitted.append(rule.code)

    def reporting(rule: Rule) -> Check[Any]:
        return Check(rule, UserText, lambda fact, report: report(fact, "found"), None)
    first, second = REGISTRY["TW301"], REGISTRY["TW302"]
    dispatch(UserText(0, "x"), (reporting(first), reporting(second)), emit)
    assert emitted == ["TW301", "TW302"]
    assert reported(UserText(0, "x"), (reporting(second),), emit)
    assert emitted[-1] == "TW302"


def test_a_check_of_an_unregistered_rule_cannot_be_added() -> None:
    stray = Rule("TW099", "stray-rule", Severity.ERROR, "Not registered.", (), "", "", "")
    with pytest.raises(ValueError, match="unregistered rule TW099"):
        check(stray, UserText, prefixes=("x",))(lambda fact, report: None)
