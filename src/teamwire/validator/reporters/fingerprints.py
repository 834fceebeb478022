"""Stable identities of findings, for CI systems that follow findings from run to run.

GitLab shows one issue per fingerprint and compares fingerprints between the branches of a
merge request; GitHub code scanning matches alerts across uploads by partial fingerprints.
So each finding's fingerprint is unique within a report and stays the same while the finding
does: it hashes the reported path, the rule, the place in the transcript (the JSON pointer,
or the line and column of a decode error) and the message, plus an occurrence number for
findings alike in all of these. File lines are left out: reformatting a transcript moves
them without changing what is wrong with it.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from teamwire.validator.findings import LintReport
from teamwire.validator.reporters import encodable, relative_to_cwd


def report_path(file: str) -> str:
    """``file`` as CI systems locate it: relative to the working directory (the job's
    checkout) when inside it, with forward slashes."""
    if not file:
        return file
    return encodable(Path(relative_to_cwd(file) or os.path.abspath(file)).as_posix())


def fingerprints(report: LintReport) -> list[str]:
    """One fingerprint per finding of ``report``, in report order (32 hex digits)."""
    seen: dict[tuple[str, ...], int] = {}
    paths: dict[str, str] = {}
    found: list[str] = []
    for finding in report.findings:
        path = paths.get(finding.file)
        if path is None:
            path = paths[finding.file] = report_path(finding.file)
        # The reported path, not the path as typed: `lint .` and `lint x.json` agree.
        place = finding.pointer if finding.pointer is not None \
            else f"{finding.line}:{finding.column}"
        key = (path, finding.rule, place, finding.message)
        occurrence = seen[key] = seen.get(key, -1) + 1
        text = "\0".join([*key, str(occurrence)])
        found.append(hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:32])
    return found
