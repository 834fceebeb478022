"""The traceability matrix: every requirement with the scenarios, lint rules and run checks
that check it, and the numbers the docs page states."""

from __future__ import annotations

import json
from pathlib import Path

from teamwire.conformance.traceability import (
    CERTIFIED_CHAPTERS,
    RUN_CHECKS,
    exclusions,
    matrix_markdown,
    traces,
)

ROOT = Path(__file__).resolve().parents[2]


def test_every_requirement_has_a_row_and_every_scenario_a_place() -> None:
    rows = traces(ROOT / "spec" / "requirements.json", ROOT / "conformance" / "scenarios")
    index = json.loads((ROOT / "spec" / "requirements.json").read_text(encoding="utf-8"))
    assert [(t.id, t.level, t.summary) for t in rows] == [
        (r["id"], r["level"], r["summary"]) for r in index["requirements"]]
    by_id = {t.id: t for t in rows}
    for path in (ROOT / "conformance" / "scenarios").glob("*.json"):
        scenario = json.loads(path.read_text(encoding="utf-8"))
        for requirement in scenario["requirements"]:
            assert scenario["scenario"] in by_id[requirement].scenarios
    for check, requirements in RUN_CHECKS.items():
        assert all(check in by_id[r].checks for r in requirements)
    assert "TW402" in by_id["TW-TOOL-023"].rules


def test_without_paths_the_matrix_reads_the_shipped_spec_vectors_and_exclusions() -> None:
    shipped = traces(ROOT / "spec" / "requirements.json", ROOT / "conformance" / "scenarios",
                     ROOT / "spec" / "certification" / "exclusions.json")
    assert traces() == shipped
    assert exclusions() == exclusions(ROOT / "spec" / "certification" / "exclusions.json")


def test_the_page_counts_what_it_lists() -> None:
    rows = traces(ROOT / "spec" / "requirements.json", ROOT / "conformance" / "scenarios")
    page = matrix_markdown(rows)
    assert f"{sum(t.covered for t in rows)} of {len(rows)} requirements" in page
    matrix = page.split("## Excluded from certification")[0]
    assert matrix.count("\n| `TW-") == len(rows)


def _certified_musts() -> list[dict[str, str]]:
    index = json.loads((ROOT / "spec" / "requirements.json").read_text(encoding="utf-8"))
    return [r for r in index["requirements"]
            if r["section"].split("#")[0] in CERTIFIED_CHAPTERS
            and r["level"] in ("MUST", "MUST NOT")]


def test_every_routing_delivery_durability_and_tool_must_is_certified_or_excluded() -> None:
    """Certification covers each MUST of chapters 06, 07 and 08 with a scenario or a run
    check, or the exclusions file says why it does not."""
    rows = {t.id: t for t in traces(ROOT / "spec" / "requirements.json",
                                     ROOT / "conformance" / "scenarios",
                                     ROOT / "spec" / "certification" / "exclusions.json")}
    musts = _certified_musts()
    assert len(musts) > 50  # the chapters are found
    neither = [r["id"] for r in musts if not rows[r["id"]].certified and not rows[r["id"]].excluded]
    assert neither == [], f"cover these with a scenario or exclude them with a reason: {neither}"


def test_an_exclusion_names_a_must_of_those_chapters_that_nothing_certifies_and_says_why() -> None:
    """An exclusion is stale once a scenario or a run check covers its requirement, and
    means nothing for a requirement outside the certified chapters or a SHOULD."""
    rows = {t.id: t for t in traces(ROOT / "spec" / "requirements.json",
                                     ROOT / "conformance" / "scenarios")}
    musts = {r["id"] for r in _certified_musts()}
    for requirement, (kind, reason) in exclusions(
            ROOT / "spec" / "certification" / "exclusions.json").items():
        assert requirement in musts, f"{requirement} is not a MUST of chapters 06 to 08"
        assert not rows[requirement].certified, \
            f"{requirement} is certified by {rows[requirement].scenarios or rows[requirement].checks}: " \
            "remove its exclusion"
        assert kind in ("unobservable", "not-yet") and len(reason.split()) >= 5


def test_the_page_lists_every_exclusion_with_its_reason() -> None:
    rows = traces(ROOT / "spec" / "requirements.json", ROOT / "conformance" / "scenarios",
                  ROOT / "spec" / "certification" / "exclusions.json")
    page = matrix_markdown(rows)
    excluded = [t for t in rows if t.excluded]
    assert excluded
    section = page.split("## Excluded from certification")[1]
    for t in excluded:
        assert f"| `{t.id}` | " in section and t.excluded.replace("|", "\\|") in section
    assert f"{len(excluded)} are excluded" in page
