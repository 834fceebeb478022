"""Cross-conversation findings about answers (TW-ROUTE-015, TW-TOOL-014, TW-TOOL-022,
TW-TYPE-018; rules TW502, TW503, TW514).

- ``answer_other_agent`` names its asker by ``source_agent_id`` (and ``role_id``): an
  answer to an agent that does not exist answers no open question (TW502), even though
  another agent did ask a question of that id;
- a question answered twice is reported at the second answer (TW503);
- a text that answered the leader's ``ask_sub_agent`` and is reported to the leader again
  as an Output is TW514, whose message quotes the text shortened to 40 characters.
"""

from __future__ import annotations

from conformance.sources.transcripts.builders import SessionBuilder

from teamwire.envelope import MessageType, Profile
from teamwire.validator import LintOptions, lint_value

TL, UIO = "Team Leader", "UI Operator_1"


def _lint(builder: SessionBuilder) -> list[tuple[str, str, str | None]]:
    report = lint_value(builder.bundle(), "bundle.json", LintOptions(profile=Profile.STRICT))
    return [(f.rule, f.message, f.pointer) for f in report.findings]


def _answer_other_from(source_agent_id: int) -> SessionBuilder:
    """Full-Stack Engineer_1 asks UI Operator_1, which answers the asker it names."""
    builder = SessionBuilder()
    uio = builder.create("ui-operator", "UI Operator", 1, "Design the page.")
    fse = builder.create("full-stack-engineer", "Full-Stack Engineer", 1, "Build the API.")
    ask = builder.ask_other(fse, uio, "Which colour?", "Asking the UI operator.")
    call_id = builder.call(uio, "answer_other_agent", {
        "source_agent_id": source_agent_id, "role_id": "full-stack-engineer",
        "message_id": ask.question_id, "answer": "blue"})
    builder.result(uio, call_id, {"success": True, "display_name": fse.name,
                                  "message_id": ask.question_id})
    builder.result(fse, ask.call_id, builder._envelope(MessageType.ANSWER, uio, "blue",
                                                       question_id=ask.question_id))
    return builder


def test_an_answer_to_the_asker_it_names_is_clean() -> None:
    assert _lint(_answer_other_from(1)) == []


def test_an_answer_to_an_agent_that_does_not_exist_answers_no_open_question() -> None:
    where = f"/agents/{UIO}/messages/3/tool_calls/0"
    assert _lint(_answer_other_from(5)) == [
        ("TW408", "answer_other_agent targets full-stack-engineer #5, which does not exist",
         where),
        ("TW502", "answer_other_agent: no open question 'ask_fse_001' to answer", where),
    ]


def test_a_question_answered_twice_is_reported_at_the_second_answer() -> None:
    builder = SessionBuilder()
    uio = builder.create("ui-operator", "UI Operator", 1, "Design the page.")
    ask = builder.ask_master(uio, "Which palette?")
    builder.answer_master(ask, "blue")
    builder.answer_master(ask, "blue, really")
    found = [f for f in _lint(builder) if f[0] == "TW503"]
    assert found == [
        ("TW503", "answer_sub_agent_question: question 'ask_uio_001' of UI Operator_1 is "
         "answered again", f"/agents/{TL}/messages/7/tool_calls/0")]


def test_an_answer_reported_again_is_quoted_shortened_to_40_characters() -> None:
    builder = SessionBuilder()
    uio = builder.create("ui-operator", "UI Operator", 1, "Design the page.")
    text = "The palette is blue and white, with a contrast ratio of at least 4.5 to 1."
    builder.ask_sub(uio, "Which palette?", text)
    builder.deliver(builder.leader, builder._envelope(MessageType.COMPLETION, uio, text))
    builder.leader.messages.append({"role": "assistant", "content": "Done."})
    quoted = text[:39] + "…"
    assert len(quoted) == 40
    assert _lint(builder) == [
        ("TW514", f"Output 'out_uio_001' from {UIO} reports a text that was delivered as an "
         f"Answer ({quoted!r})", f"/agents/{TL}/messages/6/content")]
