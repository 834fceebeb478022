"""Envelopes as profile astrion reads them (TW-CERT-027): astrion's own forms compare equal to
their strict forms, and a form the profile finds invalid does not."""

from __future__ import annotations

from teamwire.conformance.profile_reading import (
    astrion_statuses,
    read_messages,
    strict_form,
    with_astrion_statuses,
)

UIO = "UI Operator_1"
FSE = "Full-Stack Engineer_1"


def text(header: str, tag: str, attributes: str = "", sender: str = UIO) -> str:
    return (f"{header}\nid: msg_3f9a0c11be\n\n<{sender}>\n<{tag}{attributes}>\nDone.\n"
            f"</{tag}>\n</{sender}>")


def test_the_completion_label_and_subtype_of_astrion_read_as_a_completion() -> None:
    native = text(f"来自 {UIO} 的任务结束汇报", "Output", ' subtype="completion_report"')
    assert strict_form(native, "Team Leader") == text(f"来自 {UIO} 的任务完成汇报", "Output")


def test_a_receiver_in_the_header_and_target_reads_as_the_ask_to_that_sub_agent() -> None:
    native = text(f"来自 {UIO} 向 {FSE} 的提问", "Ask", f' target="{FSE}" subtype="ask_other"')
    assert strict_form(native, FSE) == text(f"来自 {UIO} 的提问", "Ask")


def test_a_question_id_on_another_tag_than_answer_is_ignored_and_kept_on_an_answer() -> None:
    assert strict_form(text(f"来自 {UIO} 的提问", "Ask", ' question_id="ask_1"'),
                       "Team Leader") == text(f"来自 {UIO} 的提问", "Ask")
    answer = text(f"来自 {UIO} 的回答", "Answer", ' question_id="ask_1"')
    assert strict_form(answer, FSE) == answer


def test_forms_the_profile_finds_invalid_are_left_as_sent() -> None:
    wrong = [
        # the receiver of the header differs from target (TW-PROF-007)
        text(f"来自 {UIO} 向 {FSE} 的提问", "Ask", ' target="Full-Stack Engineer_2"'),
        # a subtype that contradicts the type (TW-PROF-008)
        text(f"来自 {UIO} 的任务进度输出", "Output", ' subtype="completion_report"'),
        # ask_master to a sub-agent
        text(f"来自 {UIO} 的提问", "Ask", ' subtype="ask_master"'),
        # a receiver that is not the agent whose conversation holds it
        text(f"来自 {UIO} 向 Full-Stack Engineer_2 的提问", "Ask"),
    ]
    for native in wrong:
        assert strict_form(native, FSE) == native


def test_only_user_messages_are_read_and_other_text_is_unchanged() -> None:
    native = text(f"来自 {UIO} 的任务结束汇报", "Output")
    messages = [{"role": "user", "content": native}, {"role": "assistant", "content": native},
                {"role": "user", "content": "not an envelope"}]
    assert read_messages(messages, "Team Leader") == [
        {"role": "user", "content": text(f"来自 {UIO} 的任务完成汇报", "Output")},
        messages[1], messages[2]]


def test_waiting_and_running_compare_the_same_and_so_do_completed_and_idle() -> None:
    expected = [{"role": "tool", "tool_call_id": "c1", "json": {"success": True, "results": [
        {"status": "waiting"}, {"status": "completed"}, {"status": {"<if present>": "idle"}},
        {"status": "terminated"}]}}]
    shown = [{"role": "tool", "tool_call_id": "c1", "json": {"success": True, "results": [
        {"status": "running"}, {"status": "idle"}, {"status": {"<if present>": "idle"}},
        {"status": "terminated"}]}}]
    assert with_astrion_statuses(expected) == shown
    assert with_astrion_statuses(shown) == shown
    # a terminated sub-agent stays terminated, and running is not idle
    assert astrion_statuses({"status": "terminated"}) != astrion_statuses({"status": "idle"})
    assert astrion_statuses({"status": "waiting"}) != astrion_statuses({"status": "completed"})
