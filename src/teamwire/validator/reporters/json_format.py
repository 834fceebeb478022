"""The ``json`` format: the contract of spec/schemas/lint-findings.schema.json."""

from __future__ import annotations

import json
from typing import Any, TextIO

from teamwire.validator.findings import Finding, LintReport, Severity
from teamwire.validator.reporters import encodable
from teamwire.validator.rules import REGISTRY

FORMAT_VERSION = 1


def finding_json(finding: Finding) -> dict[str, Any]:
    """One finding as the contract writes it."""
    rule = REGISTRY.get(finding.rule)
    return {
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


def report_json(report: LintReport) -> dict[str, Any]:
    """The whole report as the contract writes it."""
    findings = report.findings
    return {
        "version": FORMAT_VERSION,
        "findings": [finding_json(f) for f in findings],
        "summary": {
            "files": len(report.files),
            "messages": report.messages,
            "errors": sum(1 for f in findings if f.severity is Severity.ERROR),
            "warnings": sum(1 for f in findings if f.severity is Severity.WARNING),
        },
    }


def write(report: LintReport, stream: TextIO, color: bool = False) -> None:
    """Write the report as one JSON document."""
    json.dump(report_json(report), stream, ensure_ascii=False, indent=2)
    stream.write("\n")
