"""Lint baselines: the findings a project has accepted, by fingerprint, so that lint can be
adopted on old transcripts and still fail on every new finding.

The file is ``spec/schemas/lint-baseline.schema.json``. Fingerprints are those of
:mod:`teamwire.validator.reporters.fingerprints`, computed over the whole report before any
finding is dropped, so a finding keeps its fingerprint whatever the baseline holds.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from teamwire import schemas
from teamwire.validator.findings import LintReport
from teamwire.validator.reporters.fingerprints import fingerprints, report_path

BASELINE_VERSION = 1


class BaselineError(Exception):
    """A baseline file that cannot be read or is not a baseline (exit code 2)."""


def baseline_json(report: LintReport) -> dict[str, object]:
    """The baseline accepting every finding of ``report``."""
    entries = [{"fingerprint": print_, "rule": finding.rule, "file": report_path(finding.file)}
               for finding, print_ in zip(report.findings, fingerprints(report), strict=True)]
    entries.sort(key=lambda e: (e["file"], e["rule"], e["fingerprint"]))
    return {"version": BASELINE_VERSION, "findings": entries}


def write_baseline(report: LintReport, path: str) -> int:
    """Write the baseline of ``report`` to ``path``; how many findings it accepts."""
    document = baseline_json(report)
    try:
        Path(path).write_text(json.dumps(document, ensure_ascii=False, indent=2) + "\n",
                              encoding="utf-8")
    except OSError as exc:
        raise BaselineError(f"cannot write {path}: {exc.strerror or exc}") from None
    return len(report.findings)


@dataclass(frozen=True)
class Baseline:
    """The entries of a baseline file: each accepted fingerprint with the file it was in."""

    files: dict[str, str]
    """Fingerprint → the file (as reported) of the finding it accepted."""

    @property
    def fingerprints(self) -> frozenset[str]:
        """Every fingerprint the baseline accepts."""
        return frozenset(self.files)


@dataclass(frozen=True)
class BaselineUse:
    """What applying a baseline to one report did."""

    dropped: int
    """Findings of the report the baseline accepted, dropped from it."""
    stale: int
    """Entries for a file linted in this run that matched none of its findings: fixed, or
    changed so that they are new findings now. Entries for files not linted are not stale."""


def read_baseline(path: str) -> Baseline:
    """The entries of the baseline at ``path``."""
    try:
        document = json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as exc:
        raise BaselineError(f"cannot read {path}: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise BaselineError(f"{path}: not UTF-8 text") from None
    except ValueError as exc:
        raise BaselineError(f"{path}: not JSON: {exc}") from None
    errors = schemas.validate("lint-baseline", document)
    if errors:
        first = errors[0]
        raise BaselineError(f"{path}: not a lint baseline: {first.path or '(root)'}: "
                            f"{first.message}")
    return Baseline({entry["fingerprint"]: entry["file"] for entry in document["findings"]})


def apply_baseline(report: LintReport, baseline: Baseline) -> BaselineUse:
    """Drop from ``report`` every finding the baseline accepts; count them, and the entries
    for the files linted that no finding matched."""
    prints = fingerprints(report)
    accepted = baseline.fingerprints
    dropped = {id(finding) for finding, print_ in zip(report.findings, prints, strict=True)
               if print_ in accepted}
    linted = {report_path(file.file) for file in report.files if file.error is None}
    found = set(prints)
    stale = sum(1 for print_, file in baseline.files.items()
                if file in linted and print_ not in found)
    for file in report.files:
        file.findings = [f for f in file.findings if id(f) not in dropped]
    return BaselineUse(len(dropped), stale)
