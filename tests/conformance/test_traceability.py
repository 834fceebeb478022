"""The traceability matrix: every requirement with the scenarios, lint rules and run checks
that check it, and the numbers the docs page states."""

from __future__ import annotations

import json
from pathlib import Path

from teamwire.conformance.traceability import RUN_CHECKS, matrix_markdown, traces

ROOT = Path(__file__).resolve().parents[2]


def test_every_requirement_has_a_row_and_every_scenario_a_place() -> None:
    rows = traces(ROOT / "spec" / "requirements.json", ROOT / "conformance" / "scenarios")
    index = json.loads((ROOT / "spec" / "requirements.json").read_text(encoding="utf-8"))
    assert [t.id for t in rows] == [r["id"] for r in index["requirements"]]
    by_id = {t.id: t for t in rows}
    for path in (ROOT / "conformance" / "scenarios").glob("*.json"):
        scenario = json.loads(path.read_text(encoding="utf-8"))
        for requirement in scenario["requirements"]:
            assert scenario["scenario"] in by_id[requirement].scenarios
    for check, requirements in RUN_CHECKS.items():
        assert all(check in by_id[r].checks for r in requirements)
    assert "TW402" in by_id["TW-TOOL-023"].rules


def test_the_page_counts_what_it_lists() -> None:
    rows = traces(ROOT / "spec" / "requirements.json", ROOT / "conformance" / "scenarios")
    page = matrix_markdown(rows)
    assert f"{sum(t.covered for t in rows)} of {len(rows)} requirements" in page
    assert page.count("\n| `TW-") == len(rows)
