"""Output formats of ``teamwire lint``: text, json, sarif, github, junit."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TextIO

from teamwire.validator.findings import LintReport
from teamwire.validator.reporters import github, json_format, junit, sarif, text


@dataclass(frozen=True)
class Format:
    """One output format: how to write a report, and whether it wants file line numbers."""

    write: Callable[[LintReport, TextIO, bool], None]
    """write(report, stream, color)."""
    file_lines: bool = False


FORMATS: dict[str, Format] = {
    "text": Format(text.write, file_lines=True),
    "json": Format(json_format.write),
    "sarif": Format(sarif.write, file_lines=True),
    "github": Format(github.write, file_lines=True),
    "junit": Format(junit.write),
}
"""Formats by name, in the order the CLI lists them."""

__all__ = ["FORMATS", "Format"]
