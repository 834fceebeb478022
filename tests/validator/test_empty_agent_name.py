"""A bundle agent with an empty name is linted like any other (TW-NAME-002; rules TW112,
TW502).

A bundle is input the linter does not control: one whose agent key is the empty string
gets TW112 for the name, and its calls are still checked across conversations, under
that (empty) name: an answer it gives to a question nobody asked it is TW502, naming the
empty answerer as it is, not some stand-in name.
"""

from __future__ import annotations

import json

from conformance.sources.transcripts.builders import SessionBuilder

from teamwire.envelope import Profile
from teamwire.validator import LintOptions, lint_value

UIO = "UI Operator_1"


def test_an_answer_from_an_agent_with_an_empty_name_is_checked_under_that_name() -> None:
    builder = SessionBuilder()
    builder.create("ui-operator", "UI Operator", 1, "Design the page.")
    bundle = builder.bundle()
    arguments = {"source_agent_id": 1, "role_id": "ui-operator", "message_id": "ask_uio_001",
                 "answer": "blue"}
    bundle["agents"][""] = {"role_id": "ui-operator", "agent_id": 2, "messages": [
        {"role": "system", "content": "You are a UI operator."},
        {"role": "assistant", "content": "", "tool_calls": [
            {"id": "c1", "type": "function",
             "function": {"name": "answer_other_agent", "arguments": json.dumps(arguments)}}]},
        {"role": "tool", "tool_call_id": "c1", "content": json.dumps(
            {"success": True, "display_name": UIO, "message_id": "ask_uio_001"})},
    ]}
    report = lint_value(bundle, "bundle.json", LintOptions(profile=Profile.STRICT))
    rules = {f.rule for f in report.findings}
    assert "TW112" in rules
    assert [(f.message, f.pointer) for f in report.findings if f.rule == "TW502"] == [
        (f"answer_other_agent: {UIO} asked no question 'ask_uio_001' of  before this answer",
         "/agents//messages/1/tool_calls/0")]
