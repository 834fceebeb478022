"""The ``sarif`` format: SARIF 2.1.0, as code-scanning services read it."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, TextIO
from urllib.parse import quote

from teamwire._version import __version__
from teamwire.site import RULES_URL, SITE_URL
from teamwire.spec_version import SPEC_VERSION
from teamwire.validator.docs import rule_help_markdown
from teamwire.validator.findings import Finding, LintReport, Severity
from teamwire.validator.reporters import encodable, relative_to_cwd
from teamwire.validator.reporters.fingerprints import fingerprints
from teamwire.validator.rules import REGISTRY

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
_LEVEL = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "note"}


def _camel(name: str) -> str:
    head, *rest = name.split("-")
    return head + "".join(part.capitalize() for part in rest)


def rules_json() -> list[dict[str, Any]]:
    """The driver's rule descriptors, one per registered rule."""
    descriptors = []
    for rule in REGISTRY:
        descriptors.append({
            "id": rule.code,
            "name": _camel(rule.name),
            "shortDescription": {"text": rule.summary},
            "fullDescription": {"text": rule.rationale},
            "helpUri": f"{RULES_URL}#{rule.code.lower()}",
            "help": {"text": rule.rationale, "markdown": rule_help_markdown(rule)},
            "defaultConfiguration": {"level": _LEVEL[rule.severity], "enabled": rule.default},
            "properties": {"requirements": list(rule.requirements),
                           "tags": [rule.category, rule.name]},
        })
    return descriptors


def artifact_uri(file: str) -> str:
    """A URI reference for ``file``: relative to the working directory when inside it (code
    scanning resolves those against the repository root), percent-encoded (a name that is not
    UTF-8 by its bytes)."""
    relative = relative_to_cwd(file)
    if relative is None:
        return Path(os.path.abspath(file)).as_uri()
    return quote(os.fsencode(Path(relative).as_posix()))


def _result(finding: Finding, index: dict[str, int], fingerprint: str) -> dict[str, Any]:
    physical: dict[str, Any] = {"artifactLocation": {"uri": artifact_uri(finding.file)}}
    if finding.pointer is None and finding.line is not None:
        physical["region"] = {"startLine": finding.line, "startColumn": finding.column or 1}
    elif finding.file_line is not None:
        physical["region"] = {"startLine": finding.file_line}
        if finding.file_column is not None:
            physical["region"]["startColumn"] = finding.file_column
    location: dict[str, Any] = {"physicalLocation": physical}
    if finding.pointer is not None:
        location["logicalLocations"] = [{"fullyQualifiedName": finding.pointer or "/",
                                         "kind": "member"}]
    result: dict[str, Any] = {
        "ruleId": finding.rule,
        "level": _LEVEL[finding.severity],
        "message": {"text": encodable(finding.message)},
        "locations": [location],
        # Code scanning matches alerts across uploads by these: a finding keeps its own
        # while the transcript is reformatted (its file lines move, its pointer does not).
        "partialFingerprints": {"teamwireFinding/v1": fingerprint},
    }
    if finding.rule in index:
        result["ruleIndex"] = index[finding.rule]
    properties: dict[str, Any] = {}
    if finding.agent is not None:
        properties["agent"] = finding.agent
    if finding.index is not None:
        properties["index"] = finding.index
    if finding.pointer is not None and finding.line is not None:
        properties["line"] = finding.line
        properties["column"] = finding.column
    if properties:
        result["properties"] = properties
    return result


def report_sarif(report: LintReport) -> dict[str, Any]:
    """The report as one SARIF 2.1.0 log with one run."""
    index = {rule.code: i for i, rule in enumerate(REGISTRY)}
    return {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {"name": "teamwire", "version": __version__,
                                "informationUri": SITE_URL,
                                "properties": {"spec": SPEC_VERSION},
                                "rules": rules_json()}},
            "results": [_result(f, index, fingerprint) for f, fingerprint
                        in zip(report.findings, fingerprints(report), strict=True)],
            "columnKind": "unicodeCodePoints",
        }],
    }


def write(report: LintReport, stream: TextIO, color: bool = False) -> None:
    """Write the SARIF log."""
    json.dump(report_sarif(report), stream, ensure_ascii=False, indent=2)
    stream.write("\n")
