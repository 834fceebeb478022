"""Selecting rules changes which findings are reported, never what a rule finds (docs/lint.md,
--select/--ignore; the vectors of conformance/transcripts).

For every transcript vector and every rule it expects, linting with that rule alone enabled must
report exactly the vector's findings of that rule: a check must not depend on another rule
being on (the linter skips work for rules that are off, and must skip only that).
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest
from conformance.sources.transcripts.vector_runner import run_case

from tests.validator.test_vectors import CASES

PAIRS = [(f"{name} [{rule}]", case, rule) for name, case in CASES
         for rule in sorted({e["rule"] for e in case["expected"]})]


@pytest.mark.parametrize(("case", "rule"), [(c, r) for _, c, r in PAIRS], ids=[n for n, _, _ in PAIRS])
def test_a_rule_alone_finds_what_it_finds_among_all(case: dict[str, Any], rule: str) -> None:
    wanted = Counter((e["rule"], e.get("agent"), e.get("index")) for e in case["expected"]
                     if e["rule"] == rule)
    found = Counter((f.rule, f.agent, f.index) for f in run_case(case, frozenset({rule})).findings)
    assert found == wanted
