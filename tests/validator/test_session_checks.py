"""The session facts go only to the checks of enabled rules, and that leaves every finding of
those rules as it is."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from conformance.sources.transcripts.builders import small_session
from conformance.sources.transcripts.vector_runner import run_case

from teamwire.validator import REGISTRY
from teamwire.validator.session_checks import SessionChecks, session_checks

ROOT = Path(__file__).resolve().parents[2]
BUNDLE_CASES = [case for path in sorted((ROOT / "conformance" / "transcripts").glob("*.json"))
                for case in json.loads(path.read_text(encoding="utf-8"))
                if any(REGISTRY[e["rule"]].scope == "bundle" for e in case["expected"])]
EVERY = frozenset(REGISTRY.codes())


def test_no_rule_enabled_selects_no_session_check() -> None:
    assert session_checks(frozenset()) == SessionChecks(*([()] * len(SessionChecks._fields)))


def test_every_rule_enabled_selects_every_registered_session_check() -> None:
    selected = session_checks(EVERY)
    assert sum(len(checks) for checks in selected) >= 14
    for checks in selected:
        assert checks and all(c.rule.code in EVERY for c in checks)


def test_a_session_rule_alone_finds_what_it_finds_among_all() -> None:
    # Checks of rules that are off are not run (and facts no enabled check takes are not
    # built): a rule selected alone must still report exactly its findings.
    assert BUNDLE_CASES
    for case in BUNDLE_CASES:
        everything = run_case(case, EVERY).findings
        for code in sorted({f.rule for f in everything if REGISTRY[f.rule].scope == "bundle"}):
            alone = [(f.rule, f.agent, f.index, f.pointer, f.message)
                     for f in run_case(case, frozenset({code})).findings]
            among = [(f.rule, f.agent, f.index, f.pointer, f.message)
                     for f in everything if f.rule == code]
            assert alone == among, (case["description"], code)


def test_the_paired_outputs_of_a_sender_reach_their_checks_as_one_fact(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # One call per sender, not per Output: each sub-agent of the session says its outputs in
    # order, and the leader receives them in that order, so each sender's fact pairs all of
    # them, by arrival, none later than said.
    from teamwire.validator import LintOptions
    from teamwire.validator.engine import Linter
    from teamwire.validator.facts import PairedOutputs
    from teamwire.validator.registry import Check

    seen: list[PairedOutputs] = []
    kept = REGISTRY.checks_of

    def checks_of(fact: type) -> tuple[Check[Any], ...]:
        if fact is PairedOutputs:
            return (Check(REGISTRY["TW507"], PairedOutputs,
                          lambda fact, report: seen.append(fact), None),)
        return kept(fact)
    monkeypatch.setattr(REGISTRY, "checks_of", checks_of)
    bundle = small_session()
    leader = bundle["agents"]["Team Leader"]["messages"]
    report = Linter(LintOptions()).lint_value(bundle, "x.json")
    assert report.findings == []
    # The Outputs the leader received, by the header line of each (TW-TYPE-016).
    outputs = [(i, found[1]) for i, m in enumerate(leader) if m["role"] == "user"
               and (found := re.match(r"来自 (.+) 的任务(?:进度输出|完成汇报)\n", m["content"]))]
    assert sorted(fact.sender for fact in seen) == ["Full-Stack Engineer_1", "UI Operator_1"]
    for fact in seen:
        indexes = [output[0] for output, _calls, _latest in fact.pairs]
        assert indexes == [i for i, sender in outputs if sender == fact.sender]
        assert all(latest == -1 for _output, _calls, latest in fact.pairs)
        first = fact.paired(fact.pairs[0])
        assert (first.index, first.sender) == (indexes[0], fact.sender)
