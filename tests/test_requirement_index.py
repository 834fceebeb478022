"""The requirement index's ``subject`` and ``tested_by`` agree with the artefacts that test.

``tested_by`` names the kinds of language-neutral artefact that test a requirement: an
envelope vector group, a transcript vector case or a router scenario that lists the id, or a
check every certification run makes (``RUN_CHECKS``). The index must name exactly the kinds
the artefacts show, so an entry cannot claim a test that does not exist and a new vector
cannot test a requirement the index calls untested. The statements that bind the
specification's editors are listed apart, in ``spec/editorial.json``.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pytest

from teamwire import schemas
from teamwire.conformance.traceability import RUN_CHECKS, exclusions

ROOT = Path(__file__).resolve().parent.parent
SPEC = ROOT / "spec"
CONFORMANCE = ROOT / "conformance"

SUBJECTS = ("writer", "reader", "router", "validator", "harness")
METHODS = ("envelope-vector", "transcript-vector", "router-scenario", "run-check")
UNTESTED = ("not-testable", "not-yet")


def load(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def named_by_artefacts(conformance: Path = CONFORMANCE) -> dict[str, set[str]]:
    """Requirement id → the kinds of artefact that name it."""
    found: dict[str, set[str]] = {}

    def add(ids: Iterable[str], method: str) -> None:
        for requirement in ids:
            found.setdefault(requirement, set()).add(method)

    for path in sorted((conformance / "envelopes").glob("*.json")):
        for group in load(path):
            add(group["requirements"], "envelope-vector")
    for path in sorted((conformance / "transcripts").glob("*.json")):
        for case in load(path):
            add(case["requirements"], "transcript-vector")
    for path in sorted((conformance / "scenarios").glob("*.json")):
        add(load(path)["requirements"], "router-scenario")
    for requirements in RUN_CHECKS.values():
        add(requirements, "run-check")
    return found


def method_problems(index: dict[str, Any], found: dict[str, set[str]]) -> list[str]:
    """Where the index's ``tested_by`` and the artefacts disagree."""
    problems = []
    entries = {e["id"]: e for e in index["requirements"]}
    for requirement in sorted(set(found) - set(entries)):
        problems.append(f"{requirement} is named by {sorted(found[requirement])} "
                        "but is not in the index")
    for requirement, entry in entries.items():
        claimed = entry.get("tested_by", [])
        shown = found.get(requirement, set())
        untested = [m for m in claimed if m in UNTESTED]
        if untested:
            if claimed != untested[:1]:
                problems.append(f"{requirement}: {untested[0]} stands alone in tested_by")
            if shown:
                problems.append(f"{requirement} says {untested[0]} but is tested by "
                                f"{sorted(shown)}")
            if not str(entry.get("reason", "")).strip():
                problems.append(f"{requirement}: {untested[0]} needs a reason")
            continue
        if "reason" in entry:
            problems.append(f"{requirement}: a reason belongs only to an untested entry")
        if not claimed:
            problems.append(f"{requirement}: tested_by is empty")
        for method in sorted(set(claimed) - shown):
            problems.append(f"{requirement} says {method}, but no such artefact names it")
        for method in sorted(shown - set(claimed)):
            problems.append(f"{requirement} is tested by {method}, which the index leaves out")
        if claimed != [m for m in METHODS if m in claimed]:
            problems.append(f"{requirement}: tested_by is not in the order {METHODS}")
    return problems


def subject_problems(index: dict[str, Any]) -> list[str]:
    return [f"{e['id']}: subject {e.get('subject')!r} is not one of {SUBJECTS}"
            for e in index["requirements"] if e.get("subject") not in SUBJECTS]


@pytest.fixture(scope="module")
def index() -> dict[str, Any]:
    data: dict[str, Any] = load(SPEC / "requirements.json")
    return data


def test_every_entry_has_a_subject_of_the_closed_set(index: dict[str, Any]) -> None:
    assert subject_problems(index) == []


def test_tested_by_agrees_with_the_artefacts(index: dict[str, Any]) -> None:
    assert method_problems(index, named_by_artefacts()) == []


def test_index_validates_against_its_schema(index: dict[str, Any]) -> None:
    assert schemas.validate("requirements", index) == []


def test_schema_and_test_share_the_closed_sets() -> None:
    schema = load(SPEC / "schemas" / "requirements.schema.json")
    entry = schema["$defs"]["requirement"]["properties"]
    assert tuple(entry["subject"]["enum"]) == SUBJECTS
    assert tuple(entry["tested_by"]["items"]["enum"]) == METHODS + UNTESTED


def test_untested_entries_agree_with_the_certification_exclusions(
        index: dict[str, Any]) -> None:
    """An untested requirement that certification leaves out as unobservable is not testable;
    one it leaves out for now is not tested yet."""
    excluded = exclusions(SPEC / "certification" / "exclusions.json")
    for entry in index["requirements"]:
        if entry["id"] in excluded and entry["tested_by"][0] in UNTESTED:
            kind = excluded[entry["id"]][0]
            assert entry["tested_by"] == ["not-testable" if kind == "unobservable"
                                          else "not-yet"], entry["id"]


def test_editorial_statements_are_apart_from_the_index(index: dict[str, Any]) -> None:
    editorial = load(SPEC / "editorial.json")
    ids = [e["id"] for e in editorial["statements"]]
    assert ids, "the editorial list is empty"
    assert set(ids).isdisjoint(e["id"] for e in index["requirements"])
    assert all(e["id"].startswith("TW-VER-") for e in editorial["statements"])
    found = named_by_artefacts()
    assert [i for i in ids if i in found] == [], "an artefact tests an editorial statement"


# --- the checks catch disagreement -------------------------------------------------------------


def _entry(requirement: str, tested_by: list[str], **extra: str) -> dict[str, Any]:
    return {"id": requirement, "level": "MUST", "section": "a.md#b", "summary": "s",
            "subject": "router", "tested_by": tested_by, **extra}


def test_checks_find_claims_without_artefacts_and_artefacts_without_claims() -> None:
    index = {"requirements": [
        _entry("TW-ROUTE-001", ["router-scenario"]),
        _entry("TW-ROUTE-002", ["transcript-vector"]),
        _entry("TW-ROUTE-003", ["not-testable"]),
        _entry("TW-ROUTE-004", ["not-yet"], reason="no scenario yet"),
        _entry("TW-ROUTE-005", ["run-check", "router-scenario"]),
    ]}
    found = {"TW-ROUTE-002": {"transcript-vector", "router-scenario"},
             "TW-ROUTE-004": {"run-check"},
             "TW-ROUTE-005": {"run-check", "router-scenario"},
             "TW-ROUTE-009": {"envelope-vector"}}
    problems = method_problems(index, found)
    assert any(p.startswith("TW-ROUTE-001 says router-scenario") for p in problems)
    assert any(p.startswith("TW-ROUTE-002 is tested by router-scenario") for p in problems)
    assert any(p.startswith("TW-ROUTE-003: not-testable needs a reason") for p in problems)
    assert any(p.startswith("TW-ROUTE-004 says not-yet but is tested") for p in problems)
    assert any(p.startswith("TW-ROUTE-005: tested_by is not in the order") for p in problems)
    assert any(p.startswith("TW-ROUTE-009 is named by") for p in problems)
    assert len(problems) == 6


def test_checks_find_a_subject_outside_the_set() -> None:
    index = {"requirements": [dict(_entry("TW-ROUTE-001", ["run-check"]), subject="editor")]}
    assert len(subject_problems(index)) == 1
