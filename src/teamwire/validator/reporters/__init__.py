"""Output formats of ``teamwire lint``: text, json, sarif, github, gitlab, junit."""

from __future__ import annotations

import importlib
import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TextIO, cast

from teamwire.validator.findings import LintReport

Writer = Callable[[LintReport, TextIO, bool], None]
"""write(report, stream, color)."""


@dataclass(frozen=True)
class Format:
    """One output format: the module that writes it, and whether it wants file line numbers."""

    module: str
    file_lines: bool = False

    @property
    def write(self) -> Writer:
        """The format's writer, imported on first use (a run loads only the one it prints)."""
        return cast(Writer, importlib.import_module(f"{__name__}.{self.module}").write)


FORMATS: dict[str, Format] = {
    "text": Format("text", file_lines=True),
    "json": Format("json_format"),
    "sarif": Format("sarif", file_lines=True),
    "github": Format("github", file_lines=True),
    "gitlab": Format("gitlab", file_lines=True),
    "junit": Format("junit"),
}
"""Formats by name, in the order the CLI lists them."""

_SURROGATE = re.compile("[\ud800-\udfff]")


def relative_to_cwd(file: str) -> str | None:
    """``file`` relative to the working directory (where CI systems resolve paths: the job's
    checkout), when inside it; else None."""
    path = os.path.abspath(file)
    try:
        relative = os.path.relpath(path)
    except ValueError:  # another drive on Windows
        return None
    if relative == os.pardir or relative.startswith(os.pardir + os.sep):
        return None
    return relative


def encodable(text: str) -> str:
    """``text`` with lone surrogates (file names that are not UTF-8) as U+FFFD, so that
    it can be written as UTF-8."""
    return _SURROGATE.sub("\ufffd", text)


__all__ = ["FORMATS", "Format", "Writer", "encodable", "relative_to_cwd"]
