"""Where a text that is not a well-formed envelope is reported wrong: the first error, exactly placed.

Requirements: TW-ENV-017 (exactly one error, the first in text order, with its 1-based line and
column), TW-ENV-013 (a CR never ends a line: lines are counted by LF only), TW-ENV-014
(``name-mismatch``, names compared code point for code point), TW-ENV-015
(``duplicate-attribute``), TW-ENV-016 (``encoding``; a byte order mark is a character the grammar
rejects) and the ``syntax`` code of TW-ENV-017 for every text the grammar rejects; the positions
themselves follow TW-ENV-026 to TW-ENV-034 (a syntax error in the head at the first character no
envelope can go on from, one in the closing lines on those lines, a text that ends early at its end).

The oracle is the envelope's template (spec chapter "Envelope") and the chapter's definition of a
position (section "Error positions": 1-based line and column, in code points): each text is
built here line by line from its parts, and the expected position of each defect is read off that
construction (which line it is on, how many characters precede it on that line), never from the
library's own position function. A name mismatch is placed at the first character of the
offending name and a repeated attribute at the first character of its second occurrence, as the
conformance vectors place them. Every text goes through ``parse`` (the fast path, then the Lark
parser), through the Lark reference parser alone and through the fast path alone, which must
report the same error or (for syntax errors only) leave the text to the reference parser.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from teamwire.envelope import Envelope, ParseError, parse, parse_lark
from teamwire.envelope.fast_parser import parse_fast
from tests.envelope.strategies import envelopes

Expected = tuple[str, int, int]
"""(code, line, column) of the error a reader must report."""

VECTORS = Path(__file__).resolve().parents[2] / "conformance" / "envelopes" / "errors.json"

# The defects a builder can inject. Those the grammar accepts, caught by the post-parse checks:
OUTER_OPEN = "outer open tag names someone else"
DUPLICATE = "an attribute name repeats"
INNER_CLOSE = "inner close tag differs"
OUTER_CLOSE = "outer close tag differs"
CHECKED = (OUTER_OPEN, DUPLICATE, INNER_CLOSE, OUTER_CLOSE)
# ... and those the grammar rejects:
NO_DE = "header without ' 的'"
ID_COLON = "id line without its space"
NO_BLANK = "no blank third line"
UNQUOTED = "an attribute value without quotes"
SYNTAX = (NO_DE, ID_COLON, NO_BLANK, UNQUOTED)


@dataclass
class Built:
    """A text and, for each defect injected into it, where that defect is."""

    text: str
    at: dict[str, Expected] = field(default_factory=dict)

    def first(self) -> Expected:
        """The error TW-ENV-017 requires: the grammar's first if the grammar rejects the text (the
        post-parse checks only run on texts it accepts), else the first check's in text order."""
        syntax = [pos for name, pos in self.at.items() if name in SYNTAX]
        pool = syntax or list(self.at.values())
        return min(pool, key=lambda pos: (pos[1], pos[2]))


def build(envelope: Envelope, defects: frozenset[str] = frozenset(), *,
          duplicate_at: int = 1, unquoted_at: int = 0) -> Built:
    """The envelope's text written from the spec's template, with ``defects`` injected.

    Positions are counted on the lines as they are written: the line is the number of lines
    before it plus one (content adds one line per LF it holds), the column the length of the
    text before the defect on its line plus one.
    """
    lines: list[str] = []
    at: dict[str, Expected] = {}

    def here(code: str, before: str) -> Expected:
        return (code, len(lines) + 1, len(before) + 1)

    header = f"来自 {envelope.sender}"
    if envelope.receiver is not None:
        header += f" 向 {envelope.receiver}"
    if NO_DE in defects:
        header += f" {envelope.label}"
        at[NO_DE] = here("syntax", header)  # the grammar wants ' 的' where the line ends
    else:
        header += f" 的{envelope.label}"
    lines.append(header)
    if ID_COLON in defects:
        at[ID_COLON] = here("syntax", "id:")  # the space 'id: ' wants is missing there
        lines.append(f"id:{envelope.id}")
    else:
        lines.append(f"id: {envelope.id}")
    if NO_BLANK in defects:
        at[NO_BLANK] = here("syntax", "")  # the outer open tag stands where the blank line belongs
    else:
        lines.append("")
    if OUTER_OPEN in defects:
        at[OUTER_OPEN] = here("name-mismatch", "<")
        lines.append(f"<{envelope.sender}x>")
    else:
        lines.append(f"<{envelope.sender}>")
    attributes = list(envelope.attributes)
    if DUPLICATE in defects:
        if not attributes:
            attributes = [("x", "1")]
        duplicate_at = max(1, min(duplicate_at, len(attributes)))
        # Repeat a name written before the insertion point, with a value of its own.
        name = attributes[(duplicate_at - 1) // 2][0]
        attributes.insert(duplicate_at, (name, "again"))
    inner = f"<{envelope.tag}"
    for index, (name, value) in enumerate(attributes):
        if DUPLICATE in defects and index == duplicate_at:
            at[DUPLICATE] = here("duplicate-attribute", inner + " ")
        if UNQUOTED in defects and index == unquoted_at % len(attributes):
            at[UNQUOTED] = here("syntax", inner + f" {name}=")
            inner += f" {name}={value}"
        else:
            inner += f' {name}="{value}"'
    lines.append(inner + ">")
    lines.extend(envelope.content.split("\n"))  # only an LF ends a line (TW-ENV-013)
    if INNER_CLOSE in defects:
        at[INNER_CLOSE] = here("name-mismatch", "</")
        lines.append(f"</{envelope.tag}x>")
    else:
        lines.append(f"</{envelope.tag}>")
    if OUTER_CLOSE in defects:
        at[OUTER_CLOSE] = here("name-mismatch", "</")
        lines.append(f"</{envelope.sender}x>")
    else:
        lines.append(f"</{envelope.sender}>")
    return Built("\n".join(lines), at)


def reported(reader: Callable[[str], object], text: str) -> Expected | None:
    """The (code, line, column) ``reader`` rejects ``text`` with; None if it returns."""
    try:
        reader(text)
    except ParseError as exc:
        return (exc.code, exc.line, exc.column)
    return None


def assert_reports(text: str, expected: Expected) -> None:
    """``parse`` and the reference parser report ``expected``; the fast path reports it too, or,
    for a syntax error only, leaves the text to the reference parser (returns None)."""
    assert reported(parse, text) == expected, text
    assert reported(parse_lark, text) == expected, text
    try:
        fast = parse_fast(text)
    except ParseError as exc:
        assert (exc.code, exc.line, exc.column) == expected, text
    else:
        assert fast is None and expected[0] == "syntax", (text, fast)


# -- hand-written texts: defects at positions counted by hand ------------------------------------

HEADER = "来自 UI Operator_1 的任务完成汇报"


def text_of(*lines: str) -> str:
    return "\n".join(lines)


MULTIPLE: list[Any] = [
    pytest.param(text_of(HEADER, "id: out_uio_004", "", "<UI Operator_2>",
                         '<Output question_id="a" question_id="b">', "Done.", "</Output>",
                         "</UI Operator_1>"),
                 ("name-mismatch", 4, 2), id="outer tag 4:2 before repeated attribute 5:25"),
    pytest.param(text_of(HEADER, "id: out_uio_004", "", "<UI Operator_1>",
                         '<Output question_id="a" question_id="b">', "Done.", "</Task>",
                         "</UI Operator_1>"),
                 ("duplicate-attribute", 5, 25), id="repeated attribute 5:25 before inner close 7:3"),
    pytest.param(text_of(HEADER, "id: out_uio_004", "", "<UI Operator_1>", "<Output>", "Done.",
                         "</Task>", "</UI Operator_9>"),
                 ("name-mismatch", 7, 3), id="inner close 7:3 before outer close 8:3"),
    pytest.param(text_of(HEADER, "id: out_uio_004", "", "<UI Operator_2>", "<Output>", "Done.",
                         "</Output>", "</UI Operator_2>"),
                 ("name-mismatch", 4, 2), id="both outer tags differ from the header: the open one"),
    pytest.param(text_of(HEADER, "id: out_uio_004", "", "<UI Operator_1>", '<Output a="" b="" a="">',
                         "Done.", "</Task>", "</UI Operator_2>"),
                 ("duplicate-attribute", 5, 19), id="three defects: repeated attribute first"),
    pytest.param(text_of(HEADER, "id: out_uio_004", "", "<UI Operator_3>", '<Output a="" a="">',
                         "Done.", "</Task>", "</UI Operator_2>"),
                 ("name-mismatch", 4, 2), id="four defects: outer open tag first"),
    pytest.param(text_of(HEADER, "id: out_uio_004", "", "<UI Operator_1>",
                         '<Output a="1" b="2" b="3" a="4">', "Done.", "</Output>", "</UI Operator_1>"),
                 ("duplicate-attribute", 5, 21), id="two names repeat: the earlier repetition"),
    pytest.param(text_of(HEADER, "id: out_uio_004", "", "<UI Operator_1>",
                         '<Output a="1" b="2" a="3" b="4">', "Done.", "</Output>", "</UI Operator_1>"),
                 ("duplicate-attribute", 5, 21), id="two names repeat, interleaved"),
    pytest.param(text_of(HEADER, "id: out_uio_004", "", "<UI Operator_1>",
                         '<Output a="1" a="2" a="3">', "Done.", "</Output>", "</UI Operator_1>"),
                 ("duplicate-attribute", 5, 15), id="a name three times: its second occurrence"),
    # A text the grammar rejects is a syntax error, wherever the checked defects are.
    pytest.param(text_of(HEADER, "id: out_uio_004", "", "<UI Operator_2>", "<Output a=1>", "Done.",
                         "</Output>", "</UI Operator_1>"),
                 ("syntax", 5, 11), id="syntax error 5:11 after a name mismatch 4:2"),
    pytest.param(text_of(HEADER, "id:out_uio_004", "", "<UI Operator_1>", '<Output a="" a="">',
                         "Done.", "</Task>", "</UI Operator_2>"),
                 ("syntax", 2, 4), id="syntax error before three checked defects"),
    pytest.param(text_of(HEADER, "id: out_uio_004", "<UI Operator_1>", "<Output a=1>", "Done.",
                         "</Output>", "</UI Operator_1>"),
                 ("syntax", 3, 1), id="two syntax errors: the first"),
]


@pytest.mark.parametrize("text,expected", MULTIPLE)
def test_several_defects_report_the_first_in_text_order(text: str, expected: Expected) -> None:
    assert_reports(text, expected)


POSITIONS: list[Any] = [
    pytest.param(text_of(HEADER, "id: out_uio_004", "", "<UI Operator_1>", "<Output>",
                         "one\rtwo\r\rthree", "</Task>", "</UI Operator_1>"),
                 ("name-mismatch", 7, 3), id="CR in content is no line break"),
    pytest.param(text_of(HEADER, "id: out_uio_004", "", "<UI Operator_1>", "<Output>",
                         "one\r\ntwo\r\n", "</Task>", "</UI Operator_1>"),
                 ("name-mismatch", 9, 3), id="CRLF content: lines counted by LF"),
    pytest.param(text_of(HEADER, "id: out_uio_004", "", "<UI Operator_1>", "<Output>",
                         "\n\n\n\n\n\n\n\n\n\n", "</Task>", "</UI Operator_1>"),
                 ("name-mismatch", 17, 3), id="eleven blank content lines"),
    pytest.param(text_of(HEADER, "id: out_uio_004", "", "<UI Operator_1>",
                         '<Output a="🚀🧪" a="">', "Done.", "</Output>", "</UI Operator_1>"),
                 ("duplicate-attribute", 5, 16), id="astral characters are one column each"),
    pytest.param(text_of(HEADER, "id: out_uio_004", "", "<UI Operator_1>",
                         '<Output note="来自 UI Operator_1 的任务" note="">', "Done.", "</Output>",
                         "</UI Operator_1>"),
                 ("duplicate-attribute", 5, 37), id="CJK characters are one column each"),
    pytest.param(text_of(HEADER, "id: out_uio_004", "", "<UI Operator_1>",
                         '<Output a="x\ry\tz" a="">', "Done.", "</Output>", "</UI Operator_1>"),
                 ("duplicate-attribute", 5, 19), id="CR and tab in a value are one column each"),
    pytest.param(text_of(HEADER, "id: out_uio_004", "", "<UI Operator_1>",
                         '<Output a="e\u0301" a="">', "Done.", "</Output>", "</UI Operator_1>"),
                 ("duplicate-attribute", 5, 16), id="a combining mark is a column of its own"),
    pytest.param(text_of("来自 UI Operator_1 任务完成汇报\r", "id: out_uio_004", "", "<UI Operator_1>",
                         "<Output>", "Done.", "</Output>", "</UI Operator_1>"),
                 ("syntax", 1, 25), id="CR ending the header line is a column of line 1"),
    pytest.param(text_of("来自 ＵＩ　Operator_1 任务", "id: out_a_004", ""),
                 ("syntax", 1, 20), id="fullwidth letters and ideographic space are one column each"),
    pytest.param(text_of("来自 数据 分析师_1 的提问", "id: ask_a_001", "", "<数据 分析师_1<x>", "<Ask>",
                         "?", "</Ask>", "</数据 分析师_1>"),
                 ("syntax", 4, 10), id="CJK display name before a syntax error"),
    pytest.param(text_of("来自 Caf\u00e9_1 的提问", "id: ask_c_001", "", "<Cafe\u0301_1>", "<Ask>", "?",
                         "</Ask>", "</Caf\u00e9_1>"),
                 ("name-mismatch", 4, 2), id="NFC and NFD of one name differ"),
    pytest.param(text_of("来自 ui operator_1 的提问", "id: ask_a_001", "", "<UI Operator_1>", "<Ask>", "?",
                         "</Ask>", "</ui operator_1>"),
                 ("name-mismatch", 4, 2), id="names differing in case differ"),
    pytest.param(text_of("来自 Team Leader 的消息", "id: msg_tl_001", "", "<Team Leader>", "<Message>",
                         "?", "</message>", "</Team Leader>"),
                 ("name-mismatch", 7, 3), id="tags differing in case differ"),
    pytest.param("\ufeff" + text_of("来自 Team Leader 的消息", "id: msg_tl_001", "", "<Team Leader>",
                                    "<Message>", "?", "</Message>", "</Team Leader>"),
                 ("syntax", 1, 1), id="byte order mark is the first character"),
]


@pytest.mark.parametrize("text,expected", POSITIONS)
def test_lines_end_at_lf_and_columns_count_code_points(text: str, expected: Expected) -> None:
    assert_reports(text, expected)


def test_bytes_are_decoded_before_positions_are_counted() -> None:
    # An encoding error's column counts characters of the decoded prefix, not bytes.
    data = "来自 Team Leader 的消息\nid: 任务".encode() + b"\xff"
    assert reported(parse, data) == ("encoding", 2, 7)  # type: ignore[arg-type]
    # A byte order mark stays a character (TW-ENV-016): the bad byte after it is column 2.
    assert reported(parse, b"\xef\xbb\xbf\xff") == ("encoding", 1, 2)  # type: ignore[arg-type]
    # Once decoded, the BOM is what the grammar rejects, at 1:1.
    text = text_of("来自 Team Leader 的消息", "id: msg_tl_001", "", "<Team Leader>", "<Message>", "?",
                   "</Message>", "</Team Leader>")
    assert reported(parse, b"\xef\xbb\xbf" + text.encode()) == ("syntax", 1, 1)  # type: ignore[arg-type]


# -- properties: defects injected into random envelopes at computed positions --------------------

SAFE_LABELS = st.text(st.characters(codec="utf-8", exclude_characters="\n的向"),
                      min_size=1, max_size=8)


@st.composite
def defective(draw: st.DrawFn, pool: tuple[str, ...] = CHECKED + SYNTAX, min_size: int = 1,
              max_size: int = 4) -> Built:
    envelope = draw(envelopes())
    defects = draw(st.frozensets(st.sampled_from(pool), min_size=min_size, max_size=max_size))
    if NO_DE in defects:
        # Without ' 的' the sender runs to the end of the line; a label holding 的 or 向 could
        # end it earlier and move the error.
        envelope = Envelope(envelope.sender, draw(SAFE_LABELS), envelope.id, envelope.tag,
                            envelope.content, envelope.attributes, envelope.receiver)
    if UNQUOTED in defects and not envelope.attributes:
        envelope = Envelope(envelope.sender, envelope.label, envelope.id, envelope.tag,
                            envelope.content, (("a", "v"),), envelope.receiver)
    return build(envelope, defects, duplicate_at=draw(st.integers(1, 4)),
                 unquoted_at=draw(st.integers(0, 3)))


SAMPLE = Envelope("UI Operator_1", "任务完成汇报", "out_uio_004", "Output", "Done.",
                  (("question_id", "a"),))


@given(defective(max_size=1))
@example(build(SAMPLE, frozenset({OUTER_OPEN})))
@example(build(SAMPLE, frozenset({DUPLICATE})))
@example(build(SAMPLE, frozenset({NO_BLANK})))
def test_one_defect_is_reported_where_it_was_injected(built: Built) -> None:
    (expected,) = built.at.values()
    assert_reports(built.text, expected)


@given(defective(CHECKED, min_size=2))
@example(build(SAMPLE, frozenset({OUTER_OPEN, DUPLICATE})))
@example(build(SAMPLE, frozenset({DUPLICATE, INNER_CLOSE, OUTER_CLOSE})))
@example(build(SAMPLE, frozenset({INNER_CLOSE, OUTER_CLOSE})))
def test_the_first_checked_defect_in_text_order_is_reported(built: Built) -> None:
    assert_reports(built.text, built.first())


@given(defective())
@example(build(SAMPLE, frozenset({OUTER_OPEN, UNQUOTED})))
@example(build(SAMPLE, frozenset({ID_COLON, UNQUOTED, OUTER_CLOSE})))
def test_a_syntax_defect_wins_else_the_first_defect(built: Built) -> None:
    assert_reports(built.text, built.first())


def test_the_builder_writes_the_canonical_text_when_there_is_no_defect() -> None:
    # The oracle is only as good as its template: without defects it must give a valid envelope.
    assert parse(build(SAMPLE).text) == SAMPLE


# -- the vectors through each parser -------------------------------------------------------------


def error_vectors() -> list[Any]:
    return [pytest.param(case, id=case["description"])
            for group in json.loads(VECTORS.read_text(encoding="utf-8")) for case in group["tests"]]


@pytest.mark.parametrize("case", error_vectors())
def test_error_vectors_hold_for_each_parser(case: dict[str, Any]) -> None:
    error = case["error"]
    assert_reports(case["text"], (error["code"], error["line"], error["column"]))


def test_there_are_vectors_with_several_defects() -> None:
    groups = json.loads(VECTORS.read_text(encoding="utf-8"))
    assert any("first in text order" in group["description"] and len(group["tests"]) >= 5
               for group in groups)


# -- a text that ends early is wrong at its end (TW-ENV-033) ------------------------------------

TRUNCATED: list[Any] = [
    pytest.param("来自 ", (1, 4), id="header prefix only"),
    pytest.param("来自 Team Leader", (1, 15), id="no label"),
    pytest.param("来自 Team Leader 的消息", (1, 19), id="header line only"),
    pytest.param("来自 Team Leader 的消息\nid: msg_tl_001", (2, 15), id="no line break after the id"),
    pytest.param("来自 Team Leader 的消息\nid: msg_tl_001\n", (3, 1), id="no blank line"),
    pytest.param("来自 Team Leader 的消息\nid: msg_tl_001\n\n<Team Leader", (4, 13), id="open outer tag"),
    pytest.param('来自 Team Leader 的消息\nid: msg_tl_001\n\n<Team Leader>\n<Message a="1"', (5, 15),
                 id="open inner tag"),
    pytest.param("来自 Team Leader 的消息\nid: msg_tl_001\n\n<Team Leader>\n<Message a_b", (5, 13),
                 id="inside an attribute name"),
    pytest.param("来自 Team Leader 的消息\nid: msg_tl_001\n\n<Team Leader>\n<Mess", (5, 6),
                 id="inside the tag"),
    pytest.param("来自 Team Leader 的消息\nid: msg_tl_001\n\n<Team Leader>\n<Message>\nHi", (6, 3),
                 id="content without the closing lines"),
    pytest.param("来自 Team Leader 的消息\nid: msg_tl_001\n\n<Team Leader>\n<Message>\nHi\n</Message>\n",
                 (8, 1), id="no outer close tag line"),
]


@pytest.mark.parametrize("text,where", TRUNCATED)
def test_a_text_that_ends_early_is_reported_at_its_end(text: str, where: tuple[int, int]) -> None:
    # The end of the text is where the first error is: every character before it is one some
    # envelope could go on from, however short the last token is.
    assert reported(parse, text) == ("syntax", *where)
    assert reported(parse_lark, text) == ("syntax", *where)
    error = parse_error(text)
    assert error.offset == len(text) and error.message.endswith("found the end of the message")


def parse_error(text: str) -> ParseError:
    with pytest.raises(ParseError) as caught:
        parse(text)
    return caught.value


# -- a defect in the closing lines is on those lines (TW-ENV-032) ------------------------------

CLOSING: list[Any] = [
    pytest.param("</Message >", "</Team Leader>", "", (7, 10), id="a space in the inner close tag"),
    pytest.param("</Message>x", "</Team Leader>", "", (7, 11), id="text after the inner close tag"),
    pytest.param("<Message>", "</Team Leader>", "", (7, 2), id="the inner close without its slash"),
    pytest.param("</Message>", "</Team Leader", "", (8, 14), id="the outer close without its '>'"),
    pytest.param("</Message>", "</>", "", (8, 3), id="an empty outer close name"),
    pytest.param("</Message>", "</Team Leader>", " ", (8, 15), id="a space after the outer close"),
    pytest.param("</Message>", "</Team Leader>", "\n\n", (9, 1), id="a second final line break"),
]


@pytest.mark.parametrize("inner,outer,end,where", CLOSING)
def test_a_defect_in_the_closing_lines_is_reported_on_them(inner: str, outer: str, end: str,
                                                          where: tuple[int, int]) -> None:
    # Lark's parser stops at the line break that ends the inner open tag line for all of
    # these (its content token cannot end anywhere); the definition reads the last lines.
    text = "\n".join(["来自 Team Leader 的消息", "id: msg_tl_001", "", "<Team Leader>", "<Message>",
                      "Hi", inner, outer]) + end
    assert reported(parse, text) == ("syntax", *where)
    assert reported(parse_lark, text) == ("syntax", *where)
