"""The transcript validator behind ``teamwire lint``.

Inputs (session bundles, lone conversations as JSON arrays or JSON Lines) are
decoded once, each conversation is checked in one pass, and bundles get the
cross-conversation flow checks. Every finding names a rule of the one registry
(``REGISTRY``), which also generates the rule documentation.

>>> report = lint_value([{"role": "user", "content": "hello"}])
>>> report.findings[0].rule
'TW009'
"""

from __future__ import annotations

from teamwire.validator.engine import (
    Linter,
    agent_for_name,
    infer_agent,
    lint_bytes,
    lint_file,
    lint_value,
)
from teamwire.validator.findings import FileReport, Finding, LintReport, Severity
from teamwire.validator.model import Link
from teamwire.validator.options import LintOptions
from teamwire.validator.registry import Rule
from teamwire.validator.rules import REGISTRY
from teamwire.validator.runner import discover, find_inputs, lint_inputs, lint_paths

__all__ = [
    "REGISTRY",
    "FileReport",
    "Finding",
    "Link",
    "LintOptions",
    "LintReport",
    "Linter",
    "Rule",
    "Severity",
    "agent_for_name",
    "discover",
    "find_inputs",
    "infer_agent",
    "lint_bytes",
    "lint_file",
    "lint_inputs",
    "lint_paths",
    "lint_value",
]
