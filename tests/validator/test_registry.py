"""The rule registry: stable codes, names, requirement ids, examples, generated docs."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from teamwire.validator import REGISTRY, Severity
from teamwire.validator.dispatch import select
from teamwire.validator.docs import rule_text, rules_markdown
from teamwire.validator.facts import ToolCall
from teamwire.validator.registry import check

ROOT = Path(__file__).resolve().parents[2]


def test_codes_and_names_are_unique_and_well_formed() -> None:
    codes = [r.code for r in REGISTRY]
    names = [r.name for r in REGISTRY]
    assert len(set(codes)) == len(codes) == len(REGISTRY)
    assert len(set(names)) == len(names)
    for rule in REGISTRY:
        assert re.fullmatch(r"TW[0-6][0-9]{2}", rule.code)
        assert re.fullmatch(r"[a-z][a-z0-9]*(-[a-z0-9]+)*", rule.name)
        assert isinstance(rule.severity, Severity)
        assert rule.summary and rule.rationale and rule.bad and rule.good
        assert rule.bad != rule.good
        assert rule.scope in ("file", "conversation", "bundle")
        assert set(rule.profiles) <= {"strict", "astrion"} and rule.profiles


def test_every_cited_requirement_exists() -> None:
    data = json.loads((ROOT / "spec" / "requirements.json").read_text(encoding="utf-8"))
    known = {r["id"] for r in data["requirements"]}
    for rule in REGISTRY:
        missing = set(rule.requirements) - known
        assert not missing, f"{rule.code} cites unknown requirements {sorted(missing)}"
        assert len(set(rule.requirements)) == len(rule.requirements)


def test_protocol_rules_cite_requirements() -> None:
    # Input rules may describe the file format only; every other rule enforces the spec.
    for rule in REGISTRY:
        if not rule.code.startswith("TW0"):
            assert rule.requirements, rule.code


def test_lookup_by_code_or_name() -> None:
    assert REGISTRY.get("TW101") is REGISTRY.get("envelope-syntax") is REGISTRY.get("tw101")
    assert REGISTRY.get("TW999") is None
    assert {r.code for r in REGISTRY.matching("TW10")} >= {"TW101", "TW109"}
    assert len(list(REGISTRY.matching("ALL"))) == len(REGISTRY)


def test_rules_page_is_up_to_date() -> None:
    committed = (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")
    assert committed == rules_markdown(), (
        "docs/rules.md is stale: python -c 'from teamwire.validator.docs import rules_markdown; "
        "open(\"docs/rules.md\", \"w\").write(rules_markdown())'")


def test_rule_text_names_the_rule() -> None:
    text = rule_text(REGISTRY["TW601"])
    assert text.startswith("# TW601 forged-header")
    assert "TW-SEC-003" in text


CANNOT_TELL = {"TW510": "the round limit is the router's setting, which no transcript records"}
"""Warnings that cite only MUSTs because the linter cannot tell from a transcript whether what
it sees breaks them (chapter Introduction, Conformance); the rationale says so."""


def test_severity_follows_the_level_of_the_requirements_cited() -> None:
    """A MUST or MUST NOT violation is an error and a SHOULD or SHOULD NOT violation a warning
    (chapter Introduction): an error cites a MUST, a warning a SHOULD, save what the linter
    cannot tell. Notes (info) report what the linter did not check, not a violation."""
    index = json.loads((ROOT / "spec" / "requirements.json").read_text(encoding="utf-8"))
    level = {r["id"]: r["level"] for r in index["requirements"]}
    wrong = []
    for rule in REGISTRY:
        levels = {level[r] for r in rule.requirements}
        if rule.severity is Severity.ERROR and not levels & {"MUST", "MUST NOT"}:
            wrong.append(f"{rule.code} is an error but cites no MUST: {sorted(levels)}")
        if rule.severity is Severity.WARNING and not levels & {"SHOULD", "SHOULD NOT"}:
            if rule.code not in CANNOT_TELL:
                wrong.append(f"{rule.code} is a warning but cites no SHOULD: {sorted(levels)}")
            elif "cannot know" not in rule.rationale:
                wrong.append(f"{rule.code}: the rationale does not say what it cannot know")
    assert wrong == []


def _codes(checks: tuple[Any, ...]) -> list[str]:
    return [c.rule.code for c in checks]


def test_a_call_goes_to_the_checks_of_its_kinds_and_tools_only() -> None:
    # Trigger.calls and Trigger.tools, as the selection reads them: written from what each
    # check says it looks into (TW401/TW418 arguments read with a problem, TW402 every
    # protocol call, TW304 ask calls, TW509 ask_other_agent, TW403-TW406 verdicts, TW414
    # repeated ids).
    selection = select(frozenset(REGISTRY.default_codes()))
    assert _codes(selection.calls("send_message_to_sub_agent", True, False, False, False)) \
        == ["TW402"]
    assert _codes(selection.calls("ask_master", True, False, False, False)) \
        == ["TW304", "TW402"]
    assert _codes(selection.calls("ask_other_agent", True, False, False, False)) \
        == ["TW304", "TW402", "TW509"]
    assert _codes(selection.calls("ask_master", True, False, False, True)) \
        == ["TW304", "TW401", "TW402", "TW418"]
    assert _codes(selection.calls("read_file", False, False, True, False)) == ["TW414"]
    assert _codes(selection.calls("close_sub_agent", False, True, False, False)) \
        == ["TW403", "TW404", "TW405", "TW406"]
    assert selection.calls("read_file", False, False, False, False) == ()


def test_a_check_naming_tools_must_name_kinds_of_calls() -> None:
    with pytest.raises(ValueError, match="tools narrow calls"):
        check(REGISTRY["TW402"], ToolCall, tools=("ask_master",))
