"""What a lint run produces: findings, per-file reports and the whole report."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field


class Severity(str, enum.Enum):
    """How much a finding matters: only ``error`` makes the run fail."""

    ERROR = "error"
    WARNING = "warning"
    INFO = "info"


@dataclass(frozen=True)
class Finding:
    """One problem at one place of one input file.

    ``pointer`` (RFC 6901) names the JSON value the finding is about as closely
    as known. ``line`` and ``column`` (1-based) are positions inside the string
    at ``pointer`` (a message's content, a tool call's arguments); when
    ``pointer`` is None they are positions in the file itself.
    ``file_line`` is the line of the file where the finding's value starts, when
    known (JSONL records, JSON syntax errors); reporters that annotate files use it,
    with ``file_column``, the column of that line (in code points) where the finding's
    position inside the value (or else the value itself) starts in the file's text.
    """

    rule: str
    severity: Severity
    message: str
    file: str
    agent: str | None = None
    index: int | None = None
    pointer: str | None = None
    line: int | None = None
    column: int | None = None
    snippet: str | None = None
    """The line around the position with a caret under it (text output)."""
    file_line: int | None = None
    file_column: int | None = None

    def sort_key(self) -> tuple[int, int, int, int, str]:
        """Order within one file: by message, then position, then rule code."""
        return (-1 if self.index is None else self.index,
                self.line or 0, self.column or 0, 0, self.rule)


@dataclass
class FileReport:
    """The findings of one input file, in order, and how many messages it held."""

    file: str
    findings: list[Finding] = field(default_factory=list)
    messages: int = 0
    error: str | None = None
    """Why the file could not be read at all (exit code 2), or None."""
    source: bytes | None = field(default=None, repr=False, compare=False)
    """The bytes linted, kept for input that cannot be read again (standard input) when
    findings may need their file lines; None for files."""
    skipped: str | None = None
    """Why a file found by searching a directory was not linted (its shape says it is no
    transcript: a package.json, an event log), or None."""


@dataclass
class LintReport:
    """The result of one lint run over any number of files."""

    files: list[FileReport] = field(default_factory=list)
    skipped: list[FileReport] = field(default_factory=list)
    """Files found by searching a directory and left alone as no transcripts (not in
    ``files``; every report format ignores them)."""

    @property
    def findings(self) -> list[Finding]:
        """Every finding of every file, in file order."""
        return [f for report in self.files for f in report.findings]

    def count(self, severity: Severity) -> int:
        """How many findings have ``severity``."""
        return sum(1 for f in self.findings if f.severity is severity)

    @property
    def messages(self) -> int:
        """Messages linted over all files."""
        return sum(report.messages for report in self.files)

    @property
    def unreadable(self) -> list[FileReport]:
        """Files that could not be read."""
        return [report for report in self.files if report.error is not None]

    def exit_code(self, exit_zero: bool = False) -> int:
        """2 if an input was unreadable, else 1 if an error-severity finding exists, else 0."""
        if self.unreadable:
            return 2
        if exit_zero:
            return 0
        return 1 if any(f.severity is Severity.ERROR for f in self.findings) else 0
