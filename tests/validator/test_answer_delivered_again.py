"""An Answer delivered again is a redelivery, not an id reuse (TW-DEL-002, TW-ID-010;
rules TW301, TW302).

In one conversation, the same Answer (same id, same sender, same text) returned as the
result of a later ask is reported as delivered again (TW302, naming the first delivery),
not as another message reusing the id (TW301); the linter tells the two apart however it
took in the first copy (each Answer of a sender after the first is read on a faster
path).
"""

from __future__ import annotations

import json
from typing import Any

from teamwire.envelope import Envelope, Profile, render
from teamwire.validator import LintOptions, lint_value

UIO = "UI Operator_1"
TASK = ("来自 Team Leader 的任务发布\nid: task_001\n\n<Team Leader>\n<Task>\nDesign.\n</Task>\n"
        "</Team Leader>")


def _answer(message_id: str, question_id: str) -> str:
    return render(Envelope(sender="Team Leader", label="回答", id=message_id, tag="Answer",
                           content="Blue.", attributes=(("question_id", question_id),)))


def test_the_same_answer_returned_again_is_a_redelivery() -> None:
    messages: list[dict[str, Any]] = [{"role": "system", "content": "You design."},
                                      {"role": "user", "content": TASK}]
    answers = [("ans_tl_001", "ask_uio_001"), ("ans_tl_002", "ask_uio_002"),
               ("ans_tl_002", "ask_uio_002")]
    for n, (message_id, question_id) in enumerate(answers, 1):
        arguments = {"question": f"Question {n}?", "question_id": f"ask_uio_00{n}"}
        messages.append({"role": "assistant", "content": f"Asking {n}.", "tool_calls": [
            {"id": f"c{n}", "type": "function",
             "function": {"name": "ask_master", "arguments": json.dumps(arguments)}}]})
        messages.append({"role": "tool", "tool_call_id": f"c{n}",
                         "content": _answer(message_id, question_id)})
    messages.append({"role": "assistant", "content": "Done."})
    report = lint_value(messages, "conversation.json",
                        LintOptions(profile=Profile.STRICT, agent=UIO))
    assert [(f.rule, f.message, f.pointer) for f in report.findings] == [
        ("TW504", "ask_master asked 'ask_uio_003' but its result answers 'ask_uio_002'",
         "/7/content"),
        ("TW302", "message 'ans_tl_002' is delivered again (first at message 5)", "/7/content"),
    ]
