"""Content that is not a string (input format: TW004 invalid-message; TW-TYPE-011: TW005).

A message's content is a string (null only on an assistant message that calls tools); content
given as an array of parts is not an envelope and its parts are not checked (`teamwire rule
TW005`), anything else is not a chat-completions message (`teamwire rule TW004`). Both findings
point at the content of the message and say which kind of message it is and what it holds.
"""

from __future__ import annotations

from typing import Any

import pytest

from teamwire.validator import lint_value

PARTS = [{"type": "text", "text": "Hello"}]


def findings(messages: list[dict[str, Any]]) -> list[tuple[str, int | None, str | None, str]]:
    report = lint_value(messages, "case.json")
    return [(f.rule, f.index, f.pointer, f.message) for f in report.findings
            if f.rule in ("TW004", "TW005")]


@pytest.mark.parametrize(("role", "what"), [("system", "a system message"),
                                            ("user", "a user message")])
def test_parts_are_not_checked(role: str, what: str) -> None:
    messages: list[dict[str, Any]] = [{"role": "system", "content": "You are the Team Leader."},
                                      {"role": role, "content": PARTS}]
    assert findings(messages) == [
        ("TW005", 1, "/1/content", f"content of {what} is an array of parts; protocol messages "
         "are plain strings, so its parts are not checked")]


@pytest.mark.parametrize(("content", "kind"), [(42, "number"), (True, "boolean"),
                                               ({"text": "Hello"}, "object"), (None, "null")])
def test_content_of_another_type(content: Any, kind: str) -> None:
    messages = [{"role": "system", "content": "You are the Team Leader."},
                {"role": "user", "content": content}]
    assert findings(messages) == [
        ("TW004", 1, "/1/content", f"content of a user message is {kind}, not a string")]
