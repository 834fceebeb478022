"""A malformed Answer is reported even after a well-formed one from the same sender
(TW-ENV-010, TW-ENV-017; rule TW101).

The second ask's result has the header line of the first, but its Answer has no content
line at all (the open tag is followed straight by the close tag), which the grammar does
not allow. It is a syntax error (TW101) however the linter read the first Answer, at the
end of the text: after the open tag line only two lines follow, so the text ends before its
content and its two closing lines (TW-ENV-033).
"""

from __future__ import annotations

import json
from typing import Any

from teamwire.envelope import Envelope, Profile, render
from teamwire.validator import LintOptions, lint_value

UIO = "UI Operator_1"
TASK = ("来自 Team Leader 的任务发布\nid: task_001\n\n<Team Leader>\n<Task>\nDesign.\n</Task>\n"
        "</Team Leader>")
GOOD = render(Envelope(sender="Team Leader", label="回答", id="ans_tl_001", tag="Answer",
                       content="Blue.", attributes=(("question_id", "ask_uio_001"),)))
NO_CONTENT_LINE = ('来自 Team Leader 的回答\nid: ans_tl_002\n\n<Team Leader>\n'
                   '<Answer question_id="ask_uio_002">\n</Answer>\n</Team Leader>')


def test_an_answer_without_a_content_line_is_a_syntax_error() -> None:
    messages: list[dict[str, Any]] = [{"role": "system", "content": "You design."},
                                      {"role": "user", "content": TASK}]
    for n, answer in enumerate([GOOD, NO_CONTENT_LINE], 1):
        arguments = {"question": f"Question {n}?", "question_id": f"ask_uio_00{n}"}
        messages.append({"role": "assistant", "content": f"Asking {n}.", "tool_calls": [
            {"id": f"c{n}", "type": "function",
             "function": {"name": "ask_master", "arguments": json.dumps(arguments)}}]})
        messages.append({"role": "tool", "tool_call_id": f"c{n}", "content": answer})
    messages.append({"role": "assistant", "content": "Done."})
    report = lint_value(messages, "conversation.json",
                        LintOptions(profile=Profile.STRICT, agent=UIO))
    assert [(f.rule, f.pointer, f.line, f.column) for f in report.findings] == [
        ("TW101", "/5/content", 7, len("</Team Leader>") + 1)]
