"""A check of several rules (``also``): each finding names one of its rules, a rule that is
off loses only its own findings, and a check cannot report a rule that is not its own."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from conformance.sources.transcripts.vector_runner import run_case

from teamwire.validator import REGISTRY, Severity, facts
from teamwire.validator.dispatch import PassReporter, dispatch, hand_out, select
from teamwire.validator.facts import UserText
from teamwire.validator.registry import Check, Rule, Trigger, check

ROOT = Path(__file__).resolve().parents[2]
CASES = [case for path in sorted((ROOT / "conformance" / "transcripts").glob("*.json"))
         for case in json.loads(path.read_text(encoding="utf-8"))]


def _merged_checks() -> list[Check[Any]]:
    kinds = [value for value in vars(facts).values() if isinstance(value, type)]
    return [c for kind in kinds for c in REGISTRY.checks_of(kind) if c.also]


def test_the_rules_that_see_every_fact_of_a_kind_run_as_one_check() -> None:
    # What the check of several rules is for: the rules of one module that look at every
    # envelope's attributes, every target, every send, every answer and every paired Output
    # share one call per fact, in code order.
    codes = sorted([r.code for r in c.rules] for c in _merged_checks())
    assert codes == [
        ["TW108", "TW109", "TW110", "TW111", "TW114", "TW116", "TW117", "TW118"],
        ["TW408", "TW409", "TW410", "TW415"],
        ["TW501", "TW505", "TW506", "TW507"],
        ["TW502", "TW503", "TW508"],
        ["TW507", "TW513"]]


def _rule_cases() -> list[tuple[str, dict[str, Any]]]:
    merged = {r.code for c in _merged_checks() for r in c.rules}
    return [(code, case) for case in CASES
            for code in sorted({e["rule"] for e in case["expected"]} & merged)]


def test_the_vectors_hold_findings_of_the_rules_merged() -> None:
    found = {code for code, _ in _rule_cases()}
    assert {"TW108", "TW109", "TW110", "TW111", "TW114", "TW116", "TW117", "TW118", "TW408",
            "TW409", "TW410", "TW415", "TW501", "TW502", "TW503", "TW505", "TW506", "TW507",
            "TW508", "TW513"} <= found


def test_a_rule_of_a_merged_check_alone_finds_what_it_finds_among_all() -> None:
    # The check runs when any of its rules is on; the findings of the rules that are off are
    # dropped, so a rule selected alone reports exactly its findings among all the rules.
    every = frozenset(REGISTRY.codes())
    for code, case in _rule_cases():
        among = [(f.rule, f.agent, f.index, f.pointer, f.message, f.line, f.column)
                 for f in run_case(case, every).findings if f.rule == code]
        alone = [(f.rule, f.agent, f.index, f.pointer, f.message, f.line, f.column)
                 for f in run_case(case, frozenset({code})).findings]
        assert alone == among, (case["description"], code)
        assert among, (case["description"], code)


def test_a_merged_check_is_selected_when_any_of_its_rules_is_on() -> None:
    merged = next(c for c in _merged_checks() if c.rule.code == "TW108")
    for rule in merged.rules:
        assert merged in select(frozenset({rule.code})).checks[merged.fact]
    assert merged not in select(frozenset({"TW101"})).checks[merged.fact]


class _Pass:
    def __init__(self) -> None:
        self.emitted: list[str] = []

    def emit(self, rule: Rule, message: str, index: int | None, tail: str = "",
             text: str | None = None, offset: int | None = None) -> None:
        self.emitted.append(rule.code)


def _reporting(rule: Rule, also: tuple[Rule, ...], named: Rule | None) -> Check[Any]:
    def run(fact: Any, report: Any) -> None:
        report(fact, "found", rule=named)
    return Check(rule, UserText, run, Trigger(prefixes=("x",)), None, also)


def test_a_finding_names_one_of_the_checks_rules() -> None:
    first, second = REGISTRY["TW301"], REGISTRY["TW302"]
    owner = _Pass()
    for named, expected in [(None, "TW301"), (first, "TW301"), (second, "TW302")]:
        hand = hand_out((_reporting(first, (second,), named),))
        assert hand is not None
        hand(UserText(0, "x"), PassReporter(owner))
        assert owner.emitted[-1] == expected


def test_a_check_cannot_report_a_rule_that_is_not_its_own() -> None:
    first, second, other = REGISTRY["TW301"], REGISTRY["TW302"], REGISTRY["TW303"]
    hand = hand_out((_reporting(first, (second,), other),))
    assert hand is not None
    owner = _Pass()  # a reporter holds its pass weakly
    with pytest.raises(ValueError, match="reported TW303"):
        hand(UserText(0, "x"), PassReporter(owner))
    with pytest.raises(ValueError, match="reported TW303"):
        dispatch(UserText(0, "x"), (_reporting(first, (second,), other),), _Pass().emit)


def test_a_check_of_an_unregistered_or_repeated_rule_cannot_be_added() -> None:
    stray = Rule("TW099", "stray-rule", Severity.ERROR, "Not registered.", (), "", "", "")
    with pytest.raises(ValueError, match="unregistered rule TW099"):
        check(REGISTRY["TW301"], UserText, prefixes=("x",), also=(stray,))(
            lambda fact, report: None)
    with pytest.raises(ValueError, match="names a rule twice"):
        check(REGISTRY["TW301"], UserText, prefixes=("x",), also=(REGISTRY["TW301"],))(
            lambda fact, report: None)
