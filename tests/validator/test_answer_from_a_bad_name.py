"""An Answer from a sender whose display name is invalid, as an ask's result
(TW-NAME-002, TW-TOOL-034; rules TW112, TW504).

The result of ``ask_master`` is an Answer envelope from ``Lead_01``, a name the protocol
does not allow: the linter reports the name (TW112) and that the Answer does not come
from the Team Leader (TW504), and goes on to the rest of the conversation; a second such
result is reported the same way.
"""

from __future__ import annotations

from conformance.sources.transcripts.builders import SessionBuilder

from teamwire.envelope import Envelope, Profile, render
from teamwire.validator import LintOptions, lint_value

UIO = "UI Operator_1"


def _answer(question_id: str, message_id: str) -> str:
    return render(Envelope(sender="Lead_01", label="回答", id=message_id, tag="Answer",
                           content="Blue.", attributes=(("question_id", question_id),)))


def test_each_answer_from_an_invalid_name_is_reported() -> None:
    builder = SessionBuilder()
    uio = builder.create("ui-operator", "UI Operator", 1, "Design the page.")
    first = builder.call(uio, "ask_master", {"question": "Which palette?",
                                             "question_id": "ask_uio_001"}, "Asking.")
    builder.result(uio, first, _answer("ask_uio_001", "ans_l_001"))
    second = builder.call(uio, "ask_master", {"question": "Which font?",
                                              "question_id": "ask_uio_002"}, "Asking again.")
    builder.result(uio, second, _answer("ask_uio_002", "ans_l_002"))
    report = lint_value(uio.messages, "conversation.json",
                        LintOptions(profile=Profile.STRICT, agent=UIO))
    bad_name = ("display name is neither 'Team Leader' nor '{Role Name}_{n}' with n >= 1: "
                "'Lead_01'")
    not_leader = "ask_master result is an Answer from Lead_01, not from Team Leader"
    assert sorted((f.rule, f.message, f.pointer) for f in report.findings) == [
        ("TW112", bad_name, "/3/content"), ("TW112", bad_name, "/5/content"),
        ("TW504", not_leader, "/3/content"), ("TW504", not_leader, "/5/content"),
    ]
