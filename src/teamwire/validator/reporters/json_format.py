"""The ``json`` format: the contract of spec/schemas/lint-findings.schema.json."""

from __future__ import annotations

import json
from typing import Any, TextIO

from teamwire.spec_version import SPEC_VERSION
from teamwire.validator.findings import Finding, LintReport, Severity
from teamwire.validator.reporters import encodable
from teamwire.validator.reporters.fingerprints import fingerprints
from teamwire.validator.rules import REGISTRY

FORMAT_VERSION = 1


def finding_json(finding: Finding, fingerprint: str | None = None) -> dict[str, Any]:
    """One finding as the contract writes it (with its fingerprint, when given)."""
    rule = REGISTRY.get(finding.rule)
    written = {
        "rule": finding.rule,
        "name": rule.name if rule is not None else finding.rule,
        "severity": finding.severity.value,
        "file": encodable(finding.file),
        "agent": finding.agent,
        "index": finding.index,
        "pointer": finding.pointer,
        "line": finding.line,
        "column": finding.column,
        "requirements": list(rule.requirements) if rule is not None else [],
        "message": encodable(finding.message),
    }
    if fingerprint is not None:
        written["fingerprint"] = fingerprint
    return written


def report_json(report: LintReport) -> dict[str, Any]:
    """The whole report as the contract writes it."""
    findings = report.findings
    written: dict[str, Any] = {
        "version": FORMAT_VERSION,
        "spec": SPEC_VERSION,
        "findings": [finding_json(f, print_) for f, print_
                     in zip(findings, fingerprints(report), strict=True)],
        "summary": {
            "files": len(report.files),
            "messages": report.messages,
            "errors": sum(1 for f in findings if f.severity is Severity.ERROR),
            "warnings": sum(1 for f in findings if f.severity is Severity.WARNING),
            "notes": sum(1 for f in findings if f.severity is Severity.INFO),
        },
    }
    if report.skipped:
        written["skipped"] = [{"file": encodable(r.file), "reason": r.skipped}
                              for r in report.skipped]
    return written


def write(report: LintReport, stream: TextIO, color: bool = False) -> None:
    """Write the report as one JSON document."""
    json.dump(report_json(report), stream, ensure_ascii=False, indent=2)
    stream.write("\n")
