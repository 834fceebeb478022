"""A sub-agent asking a peer that shares its agent_id, in a lone conversation
(TW-TOOL-027, TW-TOOL-030; rule TW415).

Without ``role_id``, an agent_id never resolves to the caller itself (TW-TOOL-027), so
``UI Operator_1`` asking ``target_agent_id: 1`` asks another role's instance 1. Linted
alone, with no bundle to say which agents exist, such an accepted call is clean: it is no
call that "targets its own caller and did not fail".
"""

from __future__ import annotations

import json

from teamwire.envelope import Profile
from teamwire.validator import LintOptions, lint_value

UIO = "UI Operator_1"
TASK = ("来自 Team Leader 的任务发布\nid: task_001\n\n<Team Leader>\n<Task>\nDesign.\n</Task>\n"
        "</Team Leader>")
ANSWER = ("来自 Full-Stack Engineer_1 的回答\nid: ans_fse_001\n\n<Full-Stack Engineer_1>\n"
          '<Answer question_id="ask_uio_001">\nname, email\n</Answer>\n</Full-Stack Engineer_1>')


def _conversation(arguments: dict[str, object]) -> list[dict[str, object]]:
    return [
        {"role": "system", "content": "You design."},
        {"role": "user", "content": TASK},
        {"role": "assistant", "content": "Asking my peer.", "tool_calls": [
            {"id": "c1", "type": "function",
             "function": {"name": "ask_other_agent", "arguments": json.dumps(arguments)}}]},
        {"role": "tool", "tool_call_id": "c1", "content": ANSWER},
        {"role": "assistant", "content": "Done."},
    ]


def _findings(arguments: dict[str, object]) -> list[tuple[str, str]]:
    report = lint_value(_conversation(arguments), "conversation.json",
                        LintOptions(profile=Profile.STRICT, agent=UIO))
    return [(f.rule, f.message) for f in report.findings]


def test_the_same_number_without_role_id_is_another_agent() -> None:
    assert _findings({"target_agent_id": 1, "content": "Which API fields?",
                      "message_id": "ask_uio_001"}) == []

