"""The language-neutral transcript vectors of conformance/transcripts, run through the linter."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from conformance.sources.transcripts.vector_runner import expected, found, run_case

from teamwire.validator import REGISTRY

VECTORS = Path(__file__).resolve().parents[2] / "conformance" / "transcripts"
# A path that cannot be read is not something a vector can hold.
NOT_EXPRESSIBLE = {"TW010"}


def load_cases() -> list[tuple[str, dict[str, Any]]]:
    cases = []
    for path in sorted(VECTORS.glob("*.json")):
        for case in json.loads(path.read_text(encoding="utf-8")):
            cases.append((f"{path.stem}: {case['description']}", case))
    return cases


CASES = load_cases()


@pytest.mark.parametrize("case", [c for _, c in CASES], ids=[name for name, _ in CASES])
def test_vector(case: dict[str, Any]) -> None:
    assert found(run_case(case)) == expected(case)


def test_every_rule_has_a_trigger_and_a_near_miss() -> None:
    triggered: set[str] = set()
    near_misses: set[str] = set()
    for _, case in CASES:
        rules = {e["rule"] for e in case["expected"]}
        triggered |= rules
        code, _, rest = case["description"].partition(" ")
        if rest.startswith("near miss") and code not in rules:
            near_misses.add(code)
    codes = set(REGISTRY.codes()) - NOT_EXPRESSIBLE
    assert codes - triggered == set()
    assert codes - near_misses == set()


def test_vector_files_are_well_formed() -> None:
    keys = {"description", "profile", "agent", "config", "format", "input", "input_text",
            "input_base64", "expected", "requirements"}
    for name, case in CASES:
        assert set(case) <= keys, name
        assert sum(k in case for k in ("input", "input_text", "input_base64")) == 1, name
        assert case["profile"] in ("strict", "astrion"), name
        for entry in case["expected"]:
            assert set(entry) == {"rule", "agent", "index"}, name
            assert entry["rule"] in REGISTRY, name


def test_every_case_names_requirements_of_the_index() -> None:
    """Each case names the requirement ids it tests (TW-ENV-001 ...), at least one, each in
    the requirement index, and among them those of every rule it expects."""
    index_path = VECTORS.parents[1] / "spec" / "requirements.json"
    indexed = {e["id"] for e in json.loads(index_path.read_text(encoding="utf-8"))["requirements"]}
    for name, case in CASES:
        named = case["requirements"]
        assert named, f"{name} names no requirement"
        assert set(named) <= indexed, f"{name} names {sorted(set(named) - indexed)}"
        assert len(named) == len(set(named)), name
        for entry in case["expected"]:
            assert set(REGISTRY[entry["rule"]].requirements) <= set(named), name


def test_vectors_are_up_to_date() -> None:
    from conformance.sources.transcripts import make

    for name, cases in make.FILES.items():
        committed = json.loads((VECTORS / name).read_text(encoding="utf-8"))
        assert committed == cases(), f"{name} is stale: run python -m conformance.sources.transcripts.make"


STRICT_CLEAN = [(name, case) for name, case in CASES
                if case["profile"] == "strict" and not case["expected"]]


@pytest.mark.parametrize("case", [c for _, c in STRICT_CLEAN],
                         ids=[name for name, _ in STRICT_CLEAN])
def test_valid_in_strict_is_valid_in_astrion(case: dict[str, Any]) -> None:
    # TW-PROF-004: every input valid in profile strict is valid in profile astrion.
    assert found(run_case(dict(case, profile="astrion"))) == expected(case)
