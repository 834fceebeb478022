"""The docs' state diagram is the one generated from the table; cited requirement ids exist."""

from __future__ import annotations

import json
import re
from pathlib import Path

from teamwire.router.diagram import mermaid
from teamwire.router.table import TRANSITIONS

ROOT = Path(__file__).resolve().parents[2]


def test_docs_diagram_is_generated_from_the_table() -> None:
    text = (ROOT / "docs" / "router.md").read_text(encoding="utf-8")
    block = text.split("<!-- states:begin -->", 1)[1].split("<!-- states:end -->", 1)[0]
    assert block.strip() == f"```mermaid\n{mermaid()}\n```"


def test_diagram_names_every_state_change() -> None:
    diagram = mermaid()
    for (state, event), outcomes in TRANSITIONS.items():
        for outcome in outcomes - {state}:
            start = "[*]" if state.value == "absent" else state.value
            line = next(ln for ln in diagram.splitlines()
                        if ln.strip().startswith(f"{start} --> {outcome.value}:"))
            assert event.__name__ in line


def test_cited_requirement_ids_exist() -> None:
    known = {r["id"] for r in json.loads(
        (ROOT / "spec" / "requirements.json").read_text(encoding="utf-8"))["requirements"]}
    cited = set()
    for path in Path(__file__).parent.glob("*.py"):
        cited |= set(re.findall(r"TW-[A-Z]+-\d{3}", path.read_text(encoding="utf-8")))
    assert cited and cited <= known, sorted(cited - known)
