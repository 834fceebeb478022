"""Round trips: parse(render(e)) == e, and render(parse(t)) == t for canonical text."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from teamwire.envelope import Envelope, RenderError, parse, parse_lark, render
from tests.envelope.strategies import envelopes


@given(envelopes())
def test_parse_inverts_render(envelope: Envelope) -> None:
    text = render(envelope)
    assert parse(text) == envelope
    assert parse_lark(text) == envelope


@given(envelopes())
def test_render_inverts_parse_on_canonical_text(envelope: Envelope) -> None:
    canonical = render(envelope)
    assert render(parse(canonical)) == canonical


@given(envelopes())
def test_one_trailing_newline_is_accepted_and_dropped(envelope: Envelope) -> None:
    text = render(envelope)
    assert parse(text + "\n") == envelope
    assert render(parse(text + "\n")) == text


def test_content_is_anchored_at_the_end() -> None:
    content = "line one\n</Output>\n</UI Operator_1>\n\n来自 Team Leader 的任务发布\nid: task_002"
    envelope = Envelope("UI Operator_1", "任务进度输出", "out_uio_001", "Output", content)
    assert parse(render(envelope)).content == content


def test_empty_content_renders_as_an_empty_line() -> None:
    envelope = Envelope("Team Leader", "任务发布", "task_001", "Task", "")
    assert render(envelope).endswith("<Task>\n\n</Task>\n</Team Leader>")
    assert parse(render(envelope)) == envelope


def test_crlf_content_is_kept_byte_for_byte() -> None:
    envelope = Envelope("Team Leader", "消息", "msg_tl_001", "Message", "a\r\nb\r\n")
    assert parse(render(envelope)).content == "a\r\nb\r\n"


@pytest.mark.parametrize(
    "envelope",
    [
        Envelope("A 向", "消息", "msg_a_001", "Message", "x"),
        Envelope("A 的 B", "消息", "msg_a_001", "Message", "x"),
        Envelope("A<1", "消息", "msg_a_001", "Message", "x"),
        Envelope("Team Leader", "消\n息", "msg_tl_001", "Message", "x"),
        Envelope("Team Leader", "消息", "msg tl", "Message", "x"),
        Envelope("Team Leader", "消息", "msg_tl_001", "Mes sage", "x"),
        Envelope("Team Leader", "回答", "ans_tl_001", "Answer", "x", (("q", 'a"b'),)),
        Envelope("Team Leader", "回答", "ans_tl_001", "Answer", "x", (("q", "a"), ("q", "b"))),
        Envelope("Team Leader", "消息", "msg_tl_001", "Message", "x", receiver="B 向"),
    ],
)
def test_render_refuses_what_would_not_parse_back(envelope: Envelope) -> None:
    with pytest.raises(RenderError):
        render(envelope)


@given(st.builds(Envelope, sender=st.text(max_size=6), label=st.text(max_size=4),
                 id=st.text(max_size=6), tag=st.text(max_size=4), content=st.text(max_size=10),
                 receiver=st.one_of(st.none(), st.text(max_size=4))))
def test_render_either_round_trips_or_refuses(envelope: Envelope) -> None:
    try:
        text = render(envelope)
    except RenderError:
        return
    assert parse(text) == envelope


@pytest.mark.parametrize(
    ("envelope", "says"),
    [
        (Envelope("A<1", "消息", "msg_a_001", "Message", "x"), "sender 'A<1' "),
        (Envelope("Team Leader", "消息", "msg_tl_001", "Message", "x", receiver="B 向"),
         "receiver 'B 向' "),
        (Envelope("Team Leader", "消息", "msg_tl_001", "Message", "x", receiver="B<2"),
         "receiver 'B<2' "),
        (Envelope("Team Leader", "消息", "msg tl", "Message", "x"), "id 'msg tl' "),
        (Envelope("Team Leader", "消\n息", "msg_tl_001", "Message", "x"), "label '消\\n息' "),
    ],
)
def test_render_says_which_part_cannot_be_written(envelope: Envelope, says: str) -> None:
    with pytest.raises(RenderError) as refused:
        render(envelope)
    assert str(refused.value).startswith(says)
