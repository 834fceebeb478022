"""Malformed messages, each reported where it is and the lint going on past it
(TW-ENV-017, TW-TOOL-023; rules TW004, TW101), including the ones the linter's common-case
shortcuts must hand on to the full checks:

- a user message that is a lone header line (no line break at all) is a malformed
  envelope: TW101 on its first line;
- a tool call whose ``function`` is a string, or whose function name is no string, is
  TW004 at that call, as a conversation and as JSON Lines alike;
- a tool result whose ``tool_call_id`` is no string is TW004 at that result.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from conformance.sources.transcripts.builders import small_session

from teamwire.envelope import Profile
from teamwire.validator import LintOptions, lint_bytes, lint_value


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


@pytest.mark.parametrize("name", [[], {}, 7, None])
def test_a_function_name_that_is_no_string_is_a_finding(name: object) -> None:
    conversation = [{"role": "assistant", "content": "", "tool_calls": [
        {"id": "c", "type": "function", "function": {"name": name, "arguments": "{}"}}]}]
    data = json.dumps(conversation).encode()
    as_array = lint_bytes(data, "x.json")
    as_lines = lint_bytes(json.dumps(conversation[0]).encode() + b"\n", "x.jsonl", jsonl=True)
    assert [(f.rule, f.index) for f in as_array.findings if f.rule == "TW004"] == [("TW004", 0)]
    assert [(f.rule, f.index, f.message) for f in as_array.findings] == \
        [(f.rule, f.index, f.message) for f in as_lines.findings]


def test_a_tool_call_id_that_is_no_string_beside_a_termination_is_a_finding() -> None:
    bundle = small_session()
    leader = bundle["agents"]["Team Leader"]["messages"]
    leader.append({"role": "tool", "tool_call_id": [], "content": "{}"})
    report = lint_bytes(json.dumps(bundle).encode(), "b.json")
    assert [(f.rule, f.index) for f in report.findings] == [("TW004", len(leader) - 1)]
