"""The ``github`` format: GitHub Actions workflow commands that annotate files."""

from __future__ import annotations

from typing import TextIO

from teamwire.validator.findings import Finding, LintReport, Severity
from teamwire.validator.reporters.text import visible, where
from teamwire.validator.rules import REGISTRY

_COMMAND = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "notice"}


def _data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _shown(text: str) -> str:
    # Annotations are shown in logs and pages: other control characters (escape
    # sequences) are made visible, line breaks stay line breaks.
    return visible(_data(text))


def _property(text: str) -> str:
    return _data(text).replace(":", "%3A").replace(",", "%2C")


def command(finding: Finding) -> str:
    """The workflow command for one finding."""
    rule = REGISTRY.get(finding.rule)
    name = rule.name if rule is not None else ""
    props = [f"file={visible(_property(finding.file))}"]
    if finding.pointer is None and finding.line is not None:
        props.append(f"line={finding.line}")
        if finding.column is not None:
            props.append(f"col={finding.column}")
    elif finding.file_line is not None:
        props.append(f"line={finding.file_line}")
        if finding.file_column is not None:
            props.append(f"col={finding.file_column}")
    props.append(f"title={_property(f'{finding.rule} {name}'.strip())}")
    place = where(finding)
    message = f"{place}: {finding.message}" if place else finding.message
    return f"::{_COMMAND[finding.severity]} {','.join(props)}::{_shown(message)}"


def write(report: LintReport, stream: TextIO, color: bool = False) -> None:
    """One workflow command per finding."""
    for finding in report.findings:
        stream.write(command(finding) + "\n")
