"""Malformed messages that the linter's common-case shortcuts must hand on to the full
checks (TW-ENV-017, TW-TOOL-023; rules TW004, TW101).

- a user message that is a lone header line (no line break at all) is a malformed
  envelope: TW101 on its first line;
- an assistant message with text and one tool call whose ``function`` is a string, not
  an object, is TW004 at that call.
Both are reported, and the lint goes on to the following messages.
"""

from __future__ import annotations

from typing import Any

from teamwire.envelope import Profile
from teamwire.validator import LintOptions, lint_value


def _findings(messages: list[dict[str, Any]], agent: str) -> list[tuple[str, str, str | None]]:
    report = lint_value(messages, "conversation.json",
                        LintOptions(profile=Profile.STRICT, agent=agent))
    return [(f.rule, f.message, f.pointer) for f in report.findings]


def test_a_lone_header_line_is_a_malformed_envelope() -> None:
    header = "来自 Team Leader 的任务发布"
    messages = [{"role": "system", "content": "You design."},
                {"role": "user", "content": header}]
    report = lint_value(messages, "conversation.json",
                        LintOptions(profile=Profile.STRICT, agent="UI Operator_1"))
    assert [(f.rule, f.message, f.pointer, f.line, f.column) for f in report.findings] == [
        # the text ends where the header's line break belongs: the error is at its end
        ("TW101", "expected a line break, found the end of the message", "/1/content", 1,
         len(header) + 1)]


def test_a_single_call_whose_function_is_a_string() -> None:
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": "You lead."}, {"role": "user", "content": "go"},
        {"role": "assistant", "content": "Checking.", "tool_calls": [
            {"id": "c1", "type": "function", "function": "list_agents"}]},
        {"role": "assistant", "content": "Done."}]
    assert _findings(messages, "Team Leader") == [
        ("TW004", "tool call needs an 'id' string and a 'function' object", "/2/tool_calls/0")]
