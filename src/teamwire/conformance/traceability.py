"""Which requirement is checked where: scenario vectors (certification), lint rules
(transcripts), and the checks every certification run makes."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from teamwire._resources import data_path

RUN_CHECKS: dict[str, tuple[str, ...]] = {
    "contract": ("TW-CERT-001", "TW-CERT-002", "TW-CERT-004", "TW-CERT-006"),
    "append-only": ("TW-CERT-007",),
    "one-result-per-tool-call": ("TW-CERT-008",),
    "tool-set": ("TW-CERT-009", "TW-TOOL-001", "TW-TOOL-002", "TW-TOOL-003", "TW-TOOL-004",
                 "TW-TOOL-005"),
    "no-duplicates": ("TW-DEL-002",),
    "restored-conversation": ("TW-DUR-004", "TW-DUR-005"),
}
"""The checks of every scenario run (teamwire.conformance.checks) and what they cover."""


@dataclass
class Trace:
    """One requirement and what checks it."""

    id: str
    level: str
    summary: str
    scenarios: list[str] = field(default_factory=list)
    rules: list[str] = field(default_factory=list)
    checks: list[str] = field(default_factory=list)

    @property
    def covered(self) -> bool:
        """Whether anything checks the requirement."""
        return bool(self.scenarios or self.rules or self.checks)


def traces(spec: Path | None = None, scenarios: Path | None = None) -> list[Trace]:
    """Every requirement of the index, in its order, with what checks it."""
    from teamwire.validator.rules import REGISTRY

    index = json.loads((spec or data_path("spec", "requirements.json")).read_text(
        encoding="utf-8"))
    found = {r["id"]: Trace(r["id"], r["level"], r["summary"]) for r in index["requirements"]}
    for path in sorted((scenarios or data_path("conformance", "scenarios")).glob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        for requirement in data.get("requirements", []):
            if requirement in found:
                found[requirement].scenarios.append(data["scenario"])
    for rule in REGISTRY:
        for requirement in rule.requirements:
            if requirement in found:
                found[requirement].rules.append(rule.code)
    for check, requirements in RUN_CHECKS.items():
        for requirement in requirements:
            found[requirement].checks.append(check)
    return list(found.values())


def matrix_markdown(rows: list[Trace]) -> str:
    """The traceability matrix as a Markdown page."""
    covered = sum(t.covered for t in rows)
    lines = ["# Traceability", "",
             "Every requirement of the specification and what checks it: the router scenarios "
             "of `teamwire certify` (`conformance/scenarios/`), the lint rules of `teamwire lint` "
             "and the checks every certification run makes. Generated from "
             "`spec/requirements.json`, the scenario vectors and the rule registry.", "",
             f"{covered} of {len(rows)} requirements are checked by at least one of them.", "",
             "| requirement | level | scenarios | lint rules | run checks | summary |",
             "|---|---|---|---|---|---|"]
    for t in rows:
        summary = t.summary.replace("|", "\\|")
        lines.append(f"| `{t.id}` | {t.level} | {', '.join(t.scenarios)} | "
                     f"{', '.join(t.rules)} | {', '.join(t.checks)} | {summary} |")
    return "\n".join(lines) + "\n"
