"""Selecting rules changes which findings are reported, never what a rule finds (docs/lint.md,
--select/--ignore; the vectors of conformance/transcripts).

For every transcript vector and every rule it expects, linting with that rule alone enabled must
report exactly the vector's findings of that rule: a check must not depend on another rule
being on (the linter skips work for rules that are off, and must skip only that).
"""

from __future__ import annotations

import base64
import json
from collections import Counter
from typing import Any

import pytest

from teamwire.envelope import Profile
from teamwire.validator import FileReport, LintOptions, lint_bytes, lint_value
from teamwire.validator.options import DEFAULT_MAX_RECORD_BYTES, DEFAULT_ROUND_LIMIT
from tests.validator.test_vectors import CASES


def run_alone(case: dict[str, Any], rule: str) -> FileReport:
    """``run_case`` (tests/validator/vector_runner.py) with only ``rule`` enabled."""
    config = case.get("config", {})
    options = LintOptions(
        profile=Profile(case.get("profile", "strict")),
        agent=case.get("agent"),
        enabled=frozenset({rule}),
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


PAIRS = [(f"{name} [{rule}]", case, rule) for name, case in CASES
         for rule in sorted({e["rule"] for e in case["expected"]})]


@pytest.mark.parametrize(("case", "rule"), [(c, r) for _, c, r in PAIRS], ids=[n for n, _, _ in PAIRS])
def test_a_rule_alone_finds_what_it_finds_among_all(case: dict[str, Any], rule: str) -> None:
    wanted = Counter((e["rule"], e.get("agent"), e.get("index")) for e in case["expected"]
                     if e["rule"] == rule)
    found = Counter((f.rule, f.agent, f.index) for f in run_alone(case, rule).findings)
    assert found == wanted
