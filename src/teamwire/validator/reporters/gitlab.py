"""The ``gitlab`` format: a GitLab Code Quality report (the Code Climate subset GitLab reads),
one issue per finding with the fingerprint ``fingerprints`` gives it."""

from __future__ import annotations

import json
from typing import Any, TextIO

from teamwire.validator.findings import Finding, LintReport, Severity
from teamwire.validator.reporters import encodable
from teamwire.validator.reporters.fingerprints import fingerprints, report_path
from teamwire.validator.reporters.text import where
from teamwire.validator.rules import REGISTRY

SEVERITY = {Severity.ERROR: "major", Severity.WARNING: "minor", Severity.INFO: "info"}
"""Code Quality severity of each finding severity (GitLab orders info < minor < major)."""


def _line(finding: Finding) -> int:
    # A finding inside a message is placed on the file line its message starts on; a
    # decode error on its own line; what has neither (an unreadable file) on line 1.
    if finding.pointer is None and finding.line is not None:
        return finding.line
    return finding.file_line or 1


def issues(report: LintReport) -> list[dict[str, Any]]:
    """The report's findings as Code Quality issues, in report order."""
    found: list[dict[str, Any]] = []
    for finding, fingerprint in zip(report.findings, fingerprints(report), strict=True):
        rule = REGISTRY.get(finding.rule)
        name = f" ({rule.name})" if rule is not None else ""
        place = where(finding)
        found.append({
            "description": encodable(f"{finding.rule}{name} {place + ': ' if place else ''}"
                                     f"{finding.message}"),
            "check_name": finding.rule,
            "fingerprint": fingerprint,
            "severity": SEVERITY[finding.severity],
            "location": {"path": report_path(finding.file), "lines": {"begin": _line(finding)}},
        })
    return found


def write(report: LintReport, stream: TextIO, color: bool = False) -> None:
    """Write the Code Quality report: one JSON array."""
    json.dump(issues(report), stream, ensure_ascii=False, indent=2)
    stream.write("\n")
