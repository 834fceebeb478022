"""Every envelope's id is checked, also when its header repeats an earlier one
(TW-ID-003, TW-ID-006, TW-ID-012).

A conversation holds many envelopes from one sender with one label and tag. The linter
may remember that such a header was fine, but the id of each envelope must still be held
to the id rules: a later Task's id that is not ``task_NNN`` (TW107), a Message id that
abbreviates the leader wrongly (TW305) or carries the Task prefix (TW106) is reported even
though an earlier envelope with the same header was clean.
"""

from __future__ import annotations

from teamwire.envelope import Profile
from teamwire.validator import LintOptions, lint_value

TL, UIO = "Team Leader", "UI Operator_1"


def envelope(sender: str, label: str, message_id: str, tag: str) -> str:
    return f"来自 {sender} 的{label}\nid: {message_id}\n\n<{sender}>\n<{tag}>\nHi\n</{tag}>\n</{sender}>"


def _id_findings(texts: list[str], owner: str) -> list[tuple[str, str, int | None, int | None, int | None]]:
    report = lint_value([{"role": "user", "content": t} for t in texts], "case.json",
                        LintOptions(profile=Profile.STRICT, agent=owner))
    return [(f.rule, f.message, f.index, f.line, f.column) for f in report.findings
            if f.rule in ("TW106", "TW107", "TW305")]


def test_later_task_ids_of_another_shape_are_reported() -> None:
    texts = [envelope(TL, "任务发布", "task_001", "Task"),
             envelope(TL, "任务发布", "task_tl_002", "Task"),
             envelope(TL, "任务发布", "TASK_003", "Task")]
    assert _id_findings(texts, UIO) == [
        ("TW107", "id 'task_tl_002' is not 'task_NNN' or '{prefix}_{abbr}_NNN'", 1, 2, 5),
        ("TW107", "id 'TASK_003' is not 'task_NNN' or '{prefix}_{abbr}_NNN'", 2, 2, 5),
    ]


def test_later_message_ids_with_a_wrong_abbreviation_or_prefix_are_reported() -> None:
    texts = [envelope(TL, "消息", "msg_tl_001", "Message"),
             envelope(TL, "消息", "msg_tm_002", "Message"),
             envelope(TL, "消息", "task_005", "Message"),
             envelope(TL, "消息", "msg_tl_003", "Message")]
    assert _id_findings(texts, UIO) == [
        ("TW305", "id 'msg_tm_002' abbreviates the sender Team Leader as 'tm'; expected 'tl'",
         1, 2, 9),
        ("TW106", "id 'task_005' has prefix 'task_'; a Message (消息) takes 'msg_'", 2, 2, 5),
    ]
