"""The caret context of an error: the line around the position, at most 40 columns either
side (TW-ENV-015, TW-ENV-017; the linter's finding snippets).

A parse error deep inside a long line shows the 40 characters before and after its
position with a caret under the position; a finding on the second line of a text whose
first line is empty shows that second line, not the empty one before it. A carriage return
in the context line shows as ``␍`` and a tab as one space, so that the caret stays under
the position on a terminal.
"""

from __future__ import annotations

import pytest

from teamwire.envelope import ParseError, Profile, parse
from teamwire.validator import LintOptions, lint_value

LEADER_TASK = ("来自 Team Leader 的任务发布\nid: task_001\n\n<Team Leader>\n<Task>\nHi\n</Task>\n"
               "</Team Leader>")


def test_the_context_of_an_error_in_a_long_line_is_40_columns_either_side() -> None:
    first, second = "x" * 50, "y" * 50
    text = (f'来自 UI Operator_1 的提问\nid: ask_uio_001\n\n<UI Operator_1>\n'
            f'<Ask a="{first}" a="{second}">\nhi\n</Ask>\n</UI Operator_1>')
    with pytest.raises(ParseError) as caught:
        parse(text)
    error = caught.value
    assert (error.code, error.line, error.column) == ("duplicate-attribute", 5, 61)
    line = text.split("\n")[4]
    at = error.column - 1
    assert error.context == f"{line[at - 40:at + 40]}\n{' ' * 40}^"
    assert error.context == ('x' * 38 + '" a="' + 'y' * 37) + "\n" + " " * 40 + "^"


def test_a_finding_on_the_line_after_an_empty_first_line_shows_that_line() -> None:
    report = lint_value([{"role": "user", "content": "\n" + LEADER_TASK}], "case.json",
                        LintOptions(profile=Profile.STRICT, agent="UI Operator_1"))
    assert [(f.rule, f.line, f.column, f.snippet) for f in report.findings] == [
        ("TW601", 2, 1, "来自 Team Leader 的任务发布\n^")]


def test_a_carriage_return_in_the_context_shows_as_a_symbol() -> None:
    text = ("来自 UI Operator_1 的提问\r\nid: ask_uio_001\r\n\r\n<UI Operator_1>\r\n<Ask>\r\n"
            "hi\r\n</Ask>\r\n</UI Operator_1>")
    with pytest.raises(ParseError) as caught:
        parse(text)
    error = caught.value
    assert (error.code, error.line, error.column) == ("syntax", 2, 16)
    assert error.context == "id: ask_uio_001\u240d\n" + " " * 15 + "^"


def test_a_tab_in_the_context_shows_as_a_space() -> None:
    text = ('来自 UI Operator_1 的提问\nid: ask_uio_001\n\n<UI Operator_1>\n<Ask\tmood="x">\n'
            "hi\n</Ask>\n</UI Operator_1>")
    with pytest.raises(ParseError) as caught:
        parse(text)
    assert caught.value.context == '<Ask mood="x">\n    ^'
