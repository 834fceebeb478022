"""Run one transcript vector of conformance/transcripts through the linter."""

from __future__ import annotations

import base64
import json
from collections import Counter
from typing import Any

from teamwire.envelope import Profile
from teamwire.validator import FileReport, LintOptions, lint_bytes, lint_value
from teamwire.validator.config import select_rules
from teamwire.validator.options import DEFAULT_MAX_RECORD_BYTES, DEFAULT_ROUND_LIMIT
from teamwire.validator.rules import REGISTRY

Key = tuple[str, str | None, int | None]


def run_case(case: dict[str, Any], enabled: frozenset[str] | None = None) -> FileReport:
    """Lint the case's input under its profile, agent and config (``enabled``: these rules
    instead of the ones the config selects)."""
    config = case.get("config", {})
    if enabled is None:
        enabled = frozenset(REGISTRY.default_codes()) \
            | select_rules(config.get("extend-select", []), [])
    options = LintOptions(
        profile=Profile(case.get("profile", "strict")),
        agent=case.get("agent"),
        enabled=enabled,
        round_limit=config.get("ask-round-limit", DEFAULT_ROUND_LIMIT),
        max_record_bytes=config.get("max-record-bytes", DEFAULT_MAX_RECORD_BYTES),
    )
    jsonl = case.get("format", "json") == "jsonl"
    name = "case.jsonl" if jsonl else "case.json"
    if "input" in case:
        if jsonl:
            data = b"".join(json.dumps(m, ensure_ascii=False).encode() + b"\n"
                            for m in case["input"])
            return lint_bytes(data, name, options, jsonl=True)
        return lint_value(case["input"], name, options)
    if "input_text" in case:
        return lint_bytes(case["input_text"].encode("utf-8"), name, options, jsonl=jsonl)
    return lint_bytes(base64.b64decode(case["input_base64"]), name, options, jsonl=jsonl)


def found(report: FileReport) -> Counter[Key]:
    """The (rule, agent, index) of every finding."""
    return Counter((f.rule, f.agent, f.index) for f in report.findings)


def expected(case: dict[str, Any]) -> Counter[Key]:
    """The (rule, agent, index) the case expects."""
    return Counter((e["rule"], e.get("agent"), e.get("index")) for e in case["expected"])
