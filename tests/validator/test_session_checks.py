"""The session facts go only to the checks of enabled rules, and that leaves every finding of
those rules as it is."""

from __future__ import annotations

import json
from pathlib import Path

from teamwire.validator import REGISTRY
from teamwire.validator.session_checks import SessionChecks, session_checks
from tests.validator.vector_runner import run_case

ROOT = Path(__file__).resolve().parents[2]
BUNDLE_CASES = [case for path in sorted((ROOT / "conformance" / "transcripts").glob("*.json"))
                for case in json.loads(path.read_text(encoding="utf-8"))
                if any(REGISTRY[e["rule"]].scope == "bundle" for e in case["expected"])]
EVERY = frozenset(REGISTRY.codes())


def test_no_rule_enabled_selects_no_session_check() -> None:
    assert session_checks(frozenset()) == SessionChecks(*([()] * len(SessionChecks._fields)))


def test_every_rule_enabled_selects_every_registered_session_check() -> None:
    selected = session_checks(EVERY)
    # Counted by rule: the rules of one module that look at every fact of a kind share a check.
    assert sum(len(c.rules) for checks in selected for c in checks) >= 14
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
