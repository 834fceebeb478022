"""The fast path and the Lark reference parser accept the same texts with the same result, and
the definition of error positions (``syntax_error``) finds a syntax error exactly in the texts
the grammar rejects."""

from __future__ import annotations

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from teamwire.envelope import Envelope, ParseError, parse, parse_lark, render
from teamwire.envelope.fast_parser import parse_fast
from teamwire.envelope.lark_parser import _parser
from teamwire.envelope.syntax_error import syntax_offset
from tests.envelope.strategies import envelopes

SAMPLE = render(Envelope("UI Operator_1", "提问", "ask_uio_001", "Ask", "API ready?"))


def outcome_fast(text: str) -> object:
    try:
        result = parse_fast(text)
    except ParseError as exc:
        return ("error", exc.code, exc.offset)
    return ("ok", result) if result is not None else ("rejected",)


def outcome_lark(text: str) -> object:
    try:
        return ("ok", parse_lark(text))
    except ParseError as exc:
        return ("error", exc.code, exc.offset)


def outcome_parse(text: str) -> object:
    try:
        return ("ok", parse(text))
    except ParseError as exc:
        return ("error", exc.code, exc.offset)


def grammar_accepts(text: str) -> bool:
    """Whether the Lark grammar alone (before the post-parse checks) accepts ``text``."""
    from lark.exceptions import LarkError

    try:
        _parser().parse(text)
    except LarkError:
        return False
    return True


def assert_agree(text: str) -> None:
    fast, lark = outcome_fast(text), outcome_lark(text)
    if fast == ("rejected",):
        # The fast path only accepts; the grammar must reject for a syntax reason.
        assert lark[0] == "error" and lark[1] == "syntax", (text, lark)  # type: ignore[index]
    else:
        assert fast == lark, (text, fast, lark)
    # parse (the fast path, then the definition of error positions) gives what Lark gives,
    # and the definition finds a syntax error exactly where the grammar rejects.
    assert outcome_parse(text) == lark, text
    assert (syntax_offset(text) is None) == grammar_accepts(text), text


@st.composite
def mutated(draw: st.DrawFn) -> str:
    text = render(draw(envelopes()))
    for _ in range(draw(st.integers(1, 3))):
        if not text:
            break
        i = draw(st.integers(0, len(text) - 1))
        op = draw(st.sampled_from(["delete", "insert", "replace", "truncate", "dup-line"]))
        char = draw(st.sampled_from(["\n", " ", "<", ">", "/", '"', "=", "的", "向", "a", "_",
                                     "\r", "来自 ", "id: "]))
        if op == "delete":
            text = text[:i] + text[i + 1:]
        elif op == "insert":
            text = text[:i] + char + text[i:]
        elif op == "replace":
            text = text[:i] + char + text[i + 1:]
        elif op == "truncate":
            text = text[:i]
        else:
            lines = text.split("\n")
            j = i % len(lines)
            lines.insert(j, lines[j])
            text = "\n".join(lines)
    return text


@given(envelopes())
def test_agree_on_valid_envelopes(envelope: Envelope) -> None:
    assert_agree(render(envelope))


@given(mutated())
@example(SAMPLE.replace("<UI Operator_1>", "<UI Operator_2>", 1))
@example(SAMPLE.replace("</Ask>", "</Output>"))
@example(SAMPLE.replace("<Ask>", '<Ask a="1" a="2">'))
@example(SAMPLE.replace("来自 UI Operator_1 的", "来自 A 向 的"))
@example(SAMPLE + "\n\n")
@example(SAMPLE[:SAMPLE.index("<Ask>") + 4] + " question_id")  # ends inside an attribute name
def test_agree_on_mutated_envelopes(text: str) -> None:
    assert_agree(text)


@given(st.text(max_size=200))
def test_agree_on_arbitrary_text(text: str) -> None:
    assert_agree(text)


@given(st.text(max_size=300))
def test_parse_returns_an_envelope_or_raises_parse_error(text: str) -> None:
    try:
        result = parse(text)
    except ParseError as exc:
        assert exc.line >= 1 and exc.column >= 1
        return
    assert isinstance(result, Envelope)


@given(st.binary(max_size=300))
def test_parse_bytes_never_raises_anything_else(data: bytes) -> None:
    try:
        parse(data)
    except ParseError as exc:
        assert exc.code in {"encoding", "syntax", "name-mismatch", "duplicate-attribute"}


def test_invalid_utf8_is_an_encoding_error_with_a_position() -> None:
    data = "来自 Team Leader 的消息\nid: ".encode() + b"\xff"
    try:
        parse(data)
    except ParseError as exc:
        assert (exc.code, exc.line, exc.column) == ("encoding", 2, 5)
    else:
        raise AssertionError("invalid UTF-8 was accepted")


def test_pathological_headers_finish() -> None:
    # Regression: a nested quantifier in the fast path's name pattern made these
    # backtrack exponentially. The suite's timeout turns a relapse into a failure.
    for text in ["来自 " + "a" * 4000 + "\n", "来自 " + "a b" * 2000, "来自 " + "a 的" * 2000,
                 "来自 " + "x 向 " * 1500 + "\nid: m", "来自 A 的L\nid: m\n\n<" + "a" * 4000]:
        assert_agree(text)


def test_an_unexpected_token_is_quoted_short() -> None:
    # A token can run to the end of a long line: the message quotes its start only.
    with pytest.raises(ParseError) as caught:
        parse("x" * 1_000_000 + "\n")
    assert caught.value.message == f"expected '来自 ', found {'x' * 40!r}…"
    with pytest.raises(ParseError) as caught:
        parse("xy\n")
    assert caught.value.message == "expected '来自 ', found 'xy'"
