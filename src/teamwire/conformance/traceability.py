"""Which requirement is checked where: scenario vectors (certification), lint rules
(transcripts), and the checks every certification run makes; and, for the requirements
certification does not check, why (``spec/certification/exclusions.json``)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from teamwire._resources import data_path
from teamwire.conformance import run_checks

RUN_CHECKS: dict[str, tuple[str, ...]] = {
    name: check.requirements for name, check in run_checks.RUN_CHECKS.items()}
"""The checks of every scenario run and the requirements each may cite, read from their
registry (``teamwire.conformance.run_checks``)."""


@dataclass
class Trace:
    """One requirement and what checks it."""

    id: str
    level: str
    summary: str
    scenarios: list[str] = field(default_factory=list)
    rules: list[str] = field(default_factory=list)
    checks: list[str] = field(default_factory=list)
    excluded: str = ""
    """Why certification does not check the requirement, if it is excluded."""
    exclusion_kind: str = ""
    """``unobservable`` (a black-box harness cannot see it) or ``not-yet``."""

    @property
    def covered(self) -> bool:
        """Whether anything checks the requirement."""
        return bool(self.scenarios or self.rules or self.checks)

    @property
    def certified(self) -> bool:
        """Whether certification checks the requirement (a scenario or a run check)."""
        return bool(self.scenarios or self.checks)


CERTIFIED_CHAPTERS = ("06-tools.md", "07-routing.md", "08-delivery-durability.md")
"""The chapters whose every MUST certification covers or excludes with a reason."""


def exclusions(path: Path | None = None) -> dict[str, tuple[str, str]]:
    """Requirement id → (kind, reason) of every exclusion from certification."""
    data = json.loads((path or data_path("spec", "certification", "exclusions.json")).read_text(
        encoding="utf-8"))
    return {e["id"]: (e["kind"], e["reason"]) for e in data["exclusions"]}


def traces(spec: Path | None = None, scenarios: Path | None = None,
           excluded: Path | None = None) -> list[Trace]:
    """Every requirement of the index, in its order, with what checks it and why
    certification leaves it out, if it does."""
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
    for requirement, (kind, reason) in exclusions(excluded).items():
        if requirement in found:
            found[requirement].excluded, found[requirement].exclusion_kind = reason, kind
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
             "Every MUST and MUST NOT of the chapters Tools, Routing and Delivery and durability "
             "is checked by certification (a scenario or a run check) or excluded from it with "
             "the reason (`spec/certification/exclusions.json`): *unobservable* when a "
             "black-box harness cannot see it in the model calls a router makes, *not yet* "
             f"when no scenario checks it yet. {sum(bool(t.excluded) for t in rows)} are "
             "excluded; the list follows the matrix.", "",
             "| requirement | level | scenarios | lint rules | run checks | summary |",
             "|---|---|---|---|---|---|"]
    for t in rows:
        summary = t.summary.replace("|", "\\|")
        checks = ", ".join(t.checks) or ("excluded" if t.excluded else "")
        lines.append(f"| `{t.id}` | {t.level} | {', '.join(t.scenarios)} | "
                     f"{', '.join(t.rules)} | {checks} | {summary} |")
    lines += ["", "## Excluded from certification", "",
              "| requirement | kind | why certification does not check it |", "|---|---|---|"]
    for t in rows:
        if t.excluded:
            kind = "not yet" if t.exclusion_kind == "not-yet" else t.exclusion_kind
            reason = t.excluded.replace("|", "\\|")
            lines.append(f"| `{t.id}` | {kind} | {reason} |")
    return "\n".join(lines) + "\n"
