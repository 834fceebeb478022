"""The caret under an envelope error, as a user sees it on a terminal.

An envelope error is shown as the offending line with a caret line under it, by
``teamwire envelope parse`` (from ``ParseError.context``, built by
``teamwire.envelope.errors.caret_context``) and by ``teamwire lint``'s text format (which lays the
same snippet out again, validator/reporters/text.py). The wire text is Chinese, so the caret must
follow terminal columns, not characters: an East Asian Wide or Fullwidth character takes two
columns, a combining mark none, everything else here one.

The oracle is a display width written here from Unicode's East_Asian_Width and General_Category
properties. Each test asserts that the caret's column equals the display width of the shown
line's text before the character at the error, and that the error's own column (TW-ENV-017, the
vectors' "in characters") is a count of code points, as worked out by hand.
"""

from __future__ import annotations

import json
import re
import unicodedata
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

from teamwire.cli import main
from teamwire.envelope import ParseError, parse
from teamwire.envelope.errors import caret_context


def display_width(text: str) -> int:
    """Terminal columns of ``text``: 2 for East Asian Wide and Fullwidth, 0 for combining marks."""
    width = 0
    for char in text:
        if unicodedata.category(char) in ("Mn", "Me"):
            continue
        width += 2 if unicodedata.east_asian_width(char) in ("W", "F") else 1
    return width


def envelope_with(attributes: str, header: str = "来自 UI Operator_1 的任务完成汇报",
                  outer: str = "<UI Operator_1>") -> str:
    return "\n".join([header, "id: out_uio_001", "", outer, f"<Output{attributes}>", "Done.",
                      "</Output>", "</UI Operator_1>"])


# (text, line, column in code points, counted by hand)
CASES: list[Any] = [
    pytest.param(envelope_with(' note="来自 UI Operator_1 的任务" note="x"'), 5, 37,
                 id="the wire text in an attribute"),
    pytest.param("来自 UI Operator_1 向  的任务\nid: out_uio_001\n", 1, 21,
                 id="the wire header, no receiver"),
    pytest.param("来自 ＵＩ Operator_1 向  的任务\nid: out_uio_001\n", 1, 21, id="fullwidth letters"),
    pytest.param(envelope_with(' a="ＡＢＣ" a=""'), 5, 17, id="fullwidth letters in a value"),
    pytest.param(envelope_with(' a="🚀🧪" a=""'), 5, 16, id="emoji"),
    pytest.param(envelope_with(' a="x\ty" a=""'), 5, 17, id="a tab"),
    pytest.param(envelope_with(' a="x\ry" a=""'), 5, 17, id="a CR"),
    pytest.param(envelope_with(' a="中\t文\r！" a=""'), 5, 19, id="CJK, tab, CR and a fullwidth !"),
    pytest.param(envelope_with("", header="来自 数据 分析师_1 的任务完成汇报", outer="<数据 分析师_1<x>"),
                 4, 10, id="a CJK name before a syntax error"),
]
COMBINING: list[Any] = [
    pytest.param(envelope_with(' a="e\u0301\u0301" a=""'), 5, 17, id="combining marks"),
    pytest.param("来自 Cafe\u0301 Bot_1 向  的任务\nid: out_cb_001\n", 1, 19,
                 id="a combining mark in the header"),
]
WIDE_SPACE: list[Any] = [
    pytest.param(envelope_with(' a="任\u3000务" a=""'), 5, 17, id="an ideographic space"),
    pytest.param("来自 ＵＩ\u3000Operator_1 向  的任务\nid: out_uio_001\n", 1, 21,
                 id="an ideographic space in the header"),
]


def the_error(text: str) -> ParseError:
    with pytest.raises(ParseError) as caught:
        parse(text)
    return caught.value


def assert_caret_under(shown: str, caret: str, column: int) -> None:
    """``caret`` is spaces then '^', at the display width of ``shown`` before ``column``."""
    assert re.fullmatch(r" *\^", caret), repr(caret)
    assert len(caret) - 1 == display_width(shown[:column - 1]), (shown, caret)


# -- the library's snippet (ParseError.context) ---------------------------------------------------


@pytest.mark.parametrize("text,line,column", CASES + WIDE_SPACE)
def test_the_error_context_has_the_caret_under_the_error(text: str, line: int, column: int) -> None:
    error = the_error(text)
    assert (error.line, error.column) == (line, column)
    shown, caret = error.context.split("\n")
    assert len(shown) == len(text.split("\n")[line - 1])  # one shown character per character
    assert_caret_under(shown, caret, column)


def test_the_wire_text_literally() -> None:
    # '<Output note="' then the header text, '" ': 14 + 25 + 2 columns before the second 'note'.
    error = the_error(envelope_with(' note="来自 UI Operator_1 的任务" note="x"'))
    assert error.context == ('<Output note="来自 UI Operator_1 的任务" note="x">\n' + " " * 41 + "^")
    # The receiver is left empty by the ' 的' after '来自 ＵＩ Operator_1 向 ': the error is at
    # its 的, after 4 + 1 + 4 + 1 + 10 + 1 + 2 + 1 + 1 columns.
    error = the_error("来自 ＵＩ Operator_1 向  的任务\nid: out_uio_001\n")
    assert error.context == "来自 ＵＩ Operator_1 向  的任务\n" + " " * 25 + "^"


CHARS = st.sampled_from([*"abc XYZ_", "中", "文", "任", "务", "Ａ", "ｚ", "！", "🚀", "\t", "\r", "\u3000",
                         "é", "Ω", "ｶ", "…"])


@given(st.lists(CHARS, max_size=15).map("".join), st.lists(CHARS, max_size=7).map("".join))
def test_the_caret_follows_any_mix_of_wide_and_narrow_characters(before: str, value: str) -> None:
    # At most 40 characters precede the error, so the snippet shows its line from the start.
    text = envelope_with(f' a="{before}" b="{value}" a=""')
    error = the_error(text)
    # '<Output a="' is 11 characters, then a value, '" b="' (5), a value and '" ' (2).
    assert (error.code, error.line, error.column) == ("duplicate-attribute", 5,
                                                      11 + len(before) + 5 + len(value) + 2 + 1)
    shown, caret = error.context.split("\n")
    assert_caret_under(shown, caret, error.column)


@given(st.lists(CHARS, min_size=45, max_size=90).map("".join))
def test_a_long_line_is_cut_and_the_caret_still_sits_under_the_error(before: str) -> None:
    text = envelope_with(f' a="{before}" a=""')
    context = caret_context(text, text.index(' a=""') + 1)
    shown, caret = context.split("\n")
    # However the line was cut, the caret stands under the 'a' of the repeated attribute.
    index = shown.rindex(' a="">') + 1
    assert len(caret) - 1 == display_width(shown[:index])


# -- teamwire envelope parse ----------------------------------------------------------------------


def cli_parse(text: str) -> tuple[str, str, str]:
    """(message, shown line, caret line) that ``teamwire envelope parse -`` writes for ``text``."""
    result = CliRunner().invoke(main, ["envelope", "parse", "-"], input=text.encode())
    assert result.exit_code == 1, result.output
    message, shown, caret = result.stderr.split("\n")[:3]
    return message, shown, caret


@pytest.mark.parametrize("text,line,column", CASES)
def test_envelope_parse_puts_the_caret_under_the_error(text: str, line: int, column: int) -> None:
    message, shown, caret = cli_parse(text)
    assert message.startswith(f"<stdin>:{line}:{column}: error[")
    assert_caret_under(shown, caret, column)


@pytest.mark.parametrize("text,line,column", COMBINING)
def test_envelope_parse_caret_after_combining_marks(text: str, line: int, column: int) -> None:
    message, shown, caret = cli_parse(text)
    assert message.startswith(f"<stdin>:{line}:{column}: error[")
    assert_caret_under(shown, caret, column)


@pytest.mark.parametrize("text,line,column", WIDE_SPACE)
def test_envelope_parse_caret_after_an_ideographic_space(text: str, line: int, column: int) -> None:
    message, shown, caret = cli_parse(text)
    assert message.startswith(f"<stdin>:{line}:{column}: error[")
    assert_caret_under(shown, caret, column)


# -- teamwire lint, text format -------------------------------------------------------------------


def lint_snippet(tmp_path: Path, text: str, line: int, column: int) -> tuple[str, str]:
    """(shown line, caret line) of the lint finding at ``line``:``column`` of the envelope."""
    path = tmp_path / "conversation.json"
    path.write_text(json.dumps([{"role": "system", "content": "You are UI Operator_1."},
                                {"role": "user", "content": text}], ensure_ascii=False),
                    encoding="utf-8")
    result = CliRunner().invoke(main, ["lint", "--isolated", "--format", "text", str(path)])
    rows = result.stdout.split("\n")
    at = next(i for i, row in enumerate(rows) if f" {line}:{column}: TW" in row)
    number = f" {line} | "
    assert rows[at + 2].startswith(number), rows
    gutter = " " * (len(number) - 2) + "| "
    assert rows[at + 3].startswith(gutter), rows
    return rows[at + 2][len(number):], rows[at + 3][len(gutter):]


@pytest.mark.parametrize("text,line,column", CASES + COMBINING + WIDE_SPACE)
def test_lint_puts_the_caret_under_the_error(tmp_path: Path, text: str, line: int, column: int) -> None:
    shown, caret = lint_snippet(tmp_path, text, line, column)
    assert_caret_under(shown, caret, column)
