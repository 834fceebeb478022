"""The reader places every error where the spec's definition does (TW-ENV-026 to TW-ENV-034).

The oracle is ``tests/envelope/spec_positions.py``, a position finder written from the text of
spec/01-envelope.md alone (it imports nothing of the package). It is checked against every
envelope error vector, against texts made by breaking a valid envelope once (a character deleted,
inserted or replaced) and against bytes that are not UTF-8. Each text goes through ``parse``
(fast path, then the definition), through the Lark reference parser alone and through the fast
path alone, which must agree.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from teamwire.envelope import Envelope, ParseError, parse, parse_lark, render
from teamwire.envelope.fast_parser import parse_fast
from tests.envelope import spec_positions
from tests.envelope.spec_positions import Expected, encoding_error, first_error
from tests.envelope.strategies import envelopes

VECTORS = Path(__file__).resolve().parents[2] / "conformance" / "envelopes"


def reported(reader: Callable[[str], object], text: str) -> Expected | None:
    try:
        reader(text)
    except ParseError as exc:
        return (exc.code, exc.line, exc.column)
    return None


def assert_every_reader_reports(text: str, expected: Expected | None) -> None:
    assert reported(parse, text) == expected, text
    assert reported(parse_lark, text) == expected, text
    try:
        fast = parse_fast(text)
    except ParseError as exc:
        assert (exc.code, exc.line, exc.column) == expected, text
    else:
        # The fast path accepts, or leaves a text with a syntax error to the caller.
        assert (fast is None and expected is not None and expected[0] == "syntax") or (
            fast is not None and expected is None), (text, fast)


def vector_cases() -> list[Any]:
    cases = []
    for path in sorted(VECTORS.glob("*.json")):
        for group in json.loads(path.read_text(encoding="utf-8")):
            for case in group["tests"]:
                cases.append(pytest.param(case, id=f"{path.stem}: {case['description']}"))
    return cases


@pytest.mark.parametrize("case", vector_cases())
def test_the_oracle_agrees_with_every_vector(case: dict[str, Any]) -> None:
    error = case.get("error")
    expected = None if error is None else (error["code"], error["line"], error["column"])
    assert first_error(case["text"]) == expected
    assert_every_reader_reports(case["text"], expected)


# -- the oracle's own beginnings are beginnings -----------------------------------------------


@given(envelopes())
def test_every_beginning_of_a_valid_envelope_is_one_the_oracle_accepts(envelope: Envelope) -> None:
    # A beginning of a valid envelope has no error before its end: the oracle places its error
    # at the very end (it ends early) and nowhere earlier.
    text = render(envelope)
    head_end = text.index("\n", text.index("\n<") + 1) + 1  # after the fifth line's LF
    for cut in range(0, head_end, 3):
        prefix = text[:cut]
        lines = prefix.split("\n")
        assert first_error(prefix) == ("syntax", len(lines), len(lines[-1]) + 1), prefix
    assert first_error(text) is None


# -- broken envelopes: one character deleted, inserted or replaced -----------------------------

CHARS = ["\n", " ", "<", ">", "/", '"', "=", "的", "向", "a", "_", "\r", ":", "\t", "é", "中", "🚀"]


@st.composite
def broken(draw: st.DrawFn) -> str:
    text = render(draw(envelopes()))
    at = draw(st.integers(0, len(text)))
    how = draw(st.sampled_from(["delete", "insert", "replace"]))
    char = draw(st.sampled_from(CHARS))
    if how == "delete":
        return text[:at] + text[at + 1:]
    if how == "insert":
        return text[:at] + char + text[at:]
    return text[:at] + char + text[at + 1:]


SAMPLE = ("来自 UI Operator_1 的提问\nid: ask_uio_001\n\n<UI Operator_1>\n<Ask>\nAPI ready?\n</Ask>\n"
          "</UI Operator_1>")


@given(broken())
@example(SAMPLE.replace("id: ", "id:"))
@example(SAMPLE.replace("</Ask>", "</Ask "))
@example(SAMPLE.replace("</UI Operator_1>", "</UI Operator_1 >x"))
@example(SAMPLE.replace("的", " 的"))
@example(SAMPLE.replace(" 的", "  的"))
@example(SAMPLE.replace(" 的", " 向  的"))
@example(SAMPLE.replace("<Ask>\n", "<Ask>"))
@example(SAMPLE.replace("\nAPI ready?", ""))
@example(SAMPLE + "\n\n")
def test_a_broken_envelope_is_reported_where_the_spec_says(text: str) -> None:
    assert_every_reader_reports(text, first_error(text))


@given(st.text(st.sampled_from([*"来自 的向id:<>/\"=\n\rAa_1"]), max_size=60))
def test_near_envelopes_from_a_small_alphabet(text: str) -> None:
    assert_every_reader_reports(text, first_error(text))


# -- undecodable bytes -------------------------------------------------------------------------

BAD_BYTES = [b"\xff", b"\x80", b"\xc0\xaf", b"\xe4\xb8", b"\xed\xa0\x80", b"\xf4\x90\x80\x80",
             b"\xe4\xb8A", b"\xf0\x9f\x9a"]


@given(envelopes(), st.integers(0, 10_000), st.sampled_from(BAD_BYTES))
@example(Envelope("Team Leader", "消息", "msg_tl_001", "Message", "?"), 0, b"\xef\xbb\xbf\xff")
def test_an_encoding_error_is_at_the_end_of_the_longest_utf8_prefix(
        envelope: Envelope, where: int, bad: bytes) -> None:
    data = render(envelope).encode()
    at = where % (len(data) + 1)
    while at < len(data) and 0x80 <= data[at] < 0xC0:
        at += 1  # between two characters, so the prefix before the bad bytes decodes
    broken_data = data[:at] + bad + data[at:]
    expected = encoding_error(broken_data)
    assert expected is not None and expected[0] == "encoding"
    assert reported(parse, broken_data) == expected  # type: ignore[arg-type]


def test_the_encoding_oracle_counts_characters_not_bytes() -> None:
    assert encoding_error("来自\nid: 任务".encode() + b"\xff") == ("encoding", 2, 7)
    assert encoding_error(b"\xef\xbb\xbf\xff") == ("encoding", 1, 2)  # the BOM is column 1
    assert encoding_error(b"ok") is None


def test_the_oracle_imports_nothing_of_the_package() -> None:
    source = Path(spec_positions.__file__).read_text(encoding="utf-8")
    assert "from teamwire" not in source and "import teamwire" not in source
