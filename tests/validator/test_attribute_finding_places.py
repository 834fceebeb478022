"""Attribute findings point at the attribute on the inner open tag, and an envelope of
unknown type gets no finding that presumes a type (TW-ENV-019..024, TW-TYPE-002).

The position of TW110/TW111 is the attribute on line 5 (the inner open tag), even when the
same ``name=`` text appears earlier (in the sender's display name on the header and name
lines) or later (in the content). An envelope whose label is unknown has no message type:
it gets TW104 for the label, and not TW110 ("question_id on a …"), which only a known
non-Answer type can earn.
"""

from __future__ import annotations

from teamwire.envelope import Profile
from teamwire.validator import LintOptions, lint_value

TL, UIO = "Team Leader", "UI Operator_1"


def envelope(sender: str, label: str, message_id: str, tag: str, content: str = "Hi",
             attributes: str = "") -> str:
    return (f"来自 {sender} 的{label}\nid: {message_id}\n\n<{sender}>\n<{tag}{attributes}>\n"
            f"{content}\n</{tag}>\n</{sender}>")


def _findings(text: str, owner: str) -> list[tuple[str, str, int | None, int | None]]:
    report = lint_value([{"role": "user", "content": text}], "case.json",
                        LintOptions(profile=Profile.STRICT, agent=owner))
    return [(f.rule, f.message, f.line, f.column) for f in report.findings]


def _column(text: str, line: int, there: str) -> int:
    return text.split("\n")[line - 1].index(there) + 1


def test_an_attribute_named_in_the_content_too_is_reported_on_the_tag_line() -> None:
    text = envelope(TL, "任务发布", "task_001", "Task",
                    content='write question_id="x" into the form',
                    attributes=' question_id="ask_tl_001"')
    assert _findings(text, UIO) == [
        ("TW110", "question_id on a Task; only Answer carries it", 5,
         _column(text, 5, "question_id="))]


def test_an_attribute_named_in_the_sender_name_too_is_reported_on_the_tag_line() -> None:
    sender = "QA mood=calm_1"  # '=' and spaces may appear in a display name
    text = envelope(sender, "提问", "ask_qa_001", "Ask", attributes=' mood="calm"')
    assert _findings(text, TL) == [
        ("TW111", "attribute 'mood' is not part of spec 1.1", 5, _column(text, 5, "mood="))]


def test_an_unknown_label_with_a_question_id_gets_only_the_label_finding() -> None:
    text = envelope(UIO, "任务汇报", "out_uio_001", "Output",
                    attributes=' question_id="ask_tl_001"')
    assert _findings(text, TL) == [
        ("TW104", "unknown label '任务汇报'", 1, _column(text, 1, "任务汇报"))]
