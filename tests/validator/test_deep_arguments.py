"""Tool arguments nested more than 64 levels deep are reported whatever they hold
(TW-TOOL-039; rule TW402).

The depth limit applies to any nesting: arguments whose every value is an object, nested
70 levels, are reported exactly as arguments that nest lists or mix scalars in.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from teamwire.envelope import Profile
from teamwire.validator import LintOptions, lint_value

START = [{"role": "system", "content": "You lead."}, {"role": "user", "content": "go"}]
REFUSED = {"success": False, "error": {"code": "invalid-arguments", "message": "too deep"}}


def _findings(raw: str) -> list[tuple[str, str, str | None]]:
    call = {"id": "c1", "type": "function",
            "function": {"name": "list_agents", "arguments": raw}}
    messages: list[dict[str, Any]] = [
        *START, {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "c1", "content": json.dumps(REFUSED)},
        {"role": "assistant", "content": "Done."}]
    report = lint_value(messages, "conversation.json",
                        LintOptions(profile=Profile.STRICT, agent="Team Leader"))
    return [(f.rule, f.message, f.pointer) for f in report.findings]


@pytest.mark.parametrize("raw", [
    '{"x": ' * 70 + "1" + "}" * 70,  # objects only
    '{"n": 1, "x": ' + "[" * 70 + "]" * 70 + "}",  # a scalar beside a deep list
])
def test_arguments_nested_too_deep_are_reported(raw: str) -> None:
    assert _findings(raw) == [
        ("TW402", "list_agents: arguments nest more than 64 levels deep",
         "/2/tool_calls/0/function/arguments")]


def test_arguments_at_the_limit_are_not() -> None:
    assert _findings('{"x": ' * 63 + "1" + "}" * 63) == []
