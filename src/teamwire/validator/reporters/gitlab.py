"""The ``gitlab`` format: a GitLab Code Quality report (the Code Climate subset GitLab reads).

GitLab shows one issue per fingerprint and compares fingerprints between the source and
target branches of a merge request, so each finding's fingerprint is unique within the
report and stays the same while the finding does: it hashes the reported path, the rule,
the place in the transcript (the JSON pointer, or the line and column of a decode error)
and the message, plus an occurrence number for findings alike in all of these.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any, TextIO

from teamwire.validator.findings import Finding, LintReport, Severity
from teamwire.validator.reporters import encodable
from teamwire.validator.reporters.text import where
from teamwire.validator.rules import REGISTRY

SEVERITY = {Severity.ERROR: "major", Severity.WARNING: "minor", Severity.INFO: "info"}
"""Code Quality severity of each finding severity (GitLab orders info < minor < major)."""


def report_path(file: str) -> str:
    """``file`` as GitLab locates it: relative to the working directory (the job's checkout)
    when inside it, with forward slashes."""
    if not file:
        return file
    path = os.path.abspath(file)
    try:
        relative = os.path.relpath(path)
    except ValueError:  # another drive on Windows
        relative = path
    if relative == os.pardir or relative.startswith(os.pardir + os.sep):
        relative = path
    return encodable(Path(relative).as_posix())


def _line(finding: Finding) -> int:
    # A finding inside a message is placed on the file line its message starts on; a
    # decode error on its own line; what has neither (an unreadable file) on line 1.
    if finding.pointer is None and finding.line is not None:
        return finding.line
    return finding.file_line or 1


def _fingerprint(finding: Finding, path: str, occurrence: int) -> str:
    place = finding.pointer if finding.pointer is not None \
        else f"{finding.line}:{finding.column}"
    # The reported path, not the path as typed: `lint .` and `lint x.json` agree.
    key = "\0".join([path, finding.rule, place, finding.message, str(occurrence)])
    return hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()[:32]


def issues(report: LintReport) -> list[dict[str, Any]]:
    """The report's findings as Code Quality issues, in report order."""
    seen: dict[tuple[str, str, str | None, int | None, int | None, str], int] = {}
    found: list[dict[str, Any]] = []
    paths: dict[str, str] = {}
    for finding in report.findings:
        path = paths.get(finding.file)
        if path is None:
            path = paths[finding.file] = report_path(finding.file)
        key = (path, finding.rule, finding.pointer, finding.line, finding.column,
               finding.message)
        occurrence = seen[key] = seen.get(key, -1) + 1
        rule = REGISTRY.get(finding.rule)
        name = f" ({rule.name})" if rule is not None else ""
        place = where(finding)
        found.append({
            "description": encodable(f"{finding.rule}{name} {place + ': ' if place else ''}"
                                     f"{finding.message}"),
            "check_name": finding.rule,
            "fingerprint": _fingerprint(finding, path, occurrence),
            "severity": SEVERITY[finding.severity],
            "location": {"path": path, "lines": {"begin": _line(finding)}},
        })
    return found


def write(report: LintReport, stream: TextIO, color: bool = False) -> None:
    """Write the Code Quality report: one JSON array."""
    json.dump(issues(report), stream, ensure_ascii=False, indent=2)
    stream.write("\n")
