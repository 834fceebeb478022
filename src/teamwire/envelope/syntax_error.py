"""Where a text the grammar rejects is wrong: the one ``syntax`` error, placed as the
specification defines it (spec chapter "Envelope", section "Error positions").

The first five lines (the head) are read from the start, one character at a time: the
error is at the first character after which no text can still be an envelope. Content is
raw text, so after the head the closing tag lines are read from the end: the last two
lines, the line breaks at the end set aside (a reader accepts one; a second is the error).
A text that runs out before either is complete ends early, and the error is at its end.

Nothing here depends on Lark: the reference parser asks this module where a text it
rejected is wrong, and the fast path asks it directly, so both report the same error.
"""

from __future__ import annotations

from typing import NoReturn

from teamwire.envelope.checks import error_at
from teamwire.envelope.errors import ParseError

_MARK = "来自 "
_TO = " 向 "
_OF = " 的"
_ID_LINE = "id: "
_QUOTED = 40
"""Characters of the rest of a line an error message quotes."""


class _Wrong(Exception):
    """The scan stopped: the error is at ``offset``, where one of ``expected`` belonged."""

    def __init__(self, offset: int, *expected: str) -> None:
        super().__init__(offset)
        self.offset = offset
        self.expected = expected


_LETTERS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")
_DIGITS = frozenset("0123456789")
# Sets, not strings: '' (the end of the text) is in every string but in no set.
_TAG_START = _LETTERS
_TAG_CHARS = _LETTERS | _DIGITS | {"_", "-"}
_ATTR_START = _LETTERS | {"_"}
_ATTR_CHARS = _LETTERS | _DIGITS | {"_", ".", "-"}


def _is_id_char(ch: str) -> bool:
    # White space is str.isspace, the grammar's \s (chapter 00's list of white space).
    return not ch.isspace() and ch not in '<>"'


class _Scanner:
    """A cursor over the text with the few moves the envelope's lines need."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.at = 0

    def peek(self) -> str:
        """The character at the cursor, or '' at the end of the text."""
        return self.text[self.at] if self.at < len(self.text) else ""

    def fail(self, *expected: str) -> NoReturn:
        raise _Wrong(self.at, *expected)

    def literal(self, word: str) -> None:
        """Move past ``word``; fail at its first character the text does not have."""
        for index, ch in enumerate(word):
            if self.peek() != ch:
                self.fail(repr(word[index:]))
            self.at += 1

    def line_break(self) -> None:
        if self.peek() != "\n":
            self.fail("a line break")
        self.at += 1

    def run(self, stops: str) -> int:
        """Move past characters not in ``stops``; return how many."""
        start = self.at
        while self.at < len(self.text) and self.text[self.at] not in stops:
            self.at += 1
        return self.at - start

    def tag(self) -> None:
        if self.peek() not in _TAG_START:
            self.fail("a tag name")
        self.at += 1
        while self.peek() in _TAG_CHARS:
            self.at += 1


def _name_end(text: str, start: int, end: int) -> tuple[int, str]:
    """Where the header name starting at ``start`` ends on the line ending at ``end``, and
    the separator after it (``' 向 '`` or ``' 的'``); ``(end, '')`` when none follows.

    A name holds no space that starts either separator, so the name ends at the first
    such space: whichever separator starts first (no space starts both)."""
    of = text.find(_OF, start, end)
    to = text.find(_TO, start, end)
    if of < 0 and to < 0:
        return end, ""
    if to < 0 or 0 <= of < to:
        return of, _OF
    return to, _TO


def _header(scan: _Scanner) -> None:
    text = scan.text
    scan.literal(_MARK)
    end = text.find("\n", scan.at)
    if end < 0:
        end = len(text)
    separators: tuple[str, ...] = ("' 向 '", "' 的'")
    for role in ("sender", "receiver"):
        start = scan.at
        at, separator = _name_end(text, start, end)
        if at == start:
            if separator:  # the separator at the start leaves the name empty
                raise _Wrong(at + len(separator) - 1, "a display name")
            scan.fail("a display name")
        if not separator:
            scan.at = end
            scan.fail(*separators)
        if separator == _TO and role == "receiver":
            # A second ' 向 ': the receiver's name cannot hold it, and ' 的' must follow.
            raise _Wrong(at + len(_TO) - 1, "' 的'")
        scan.at = at + len(separator)
        if separator == _OF:
            break
        separators = ("' 的'",)
    if scan.at == end:
        scan.fail("a message label")
    scan.at = end
    scan.line_break()


def _id_line(scan: _Scanner) -> None:
    scan.literal(_ID_LINE)
    start = scan.at
    text = scan.text
    while scan.at < len(text) and _is_id_char(text[scan.at]):
        scan.at += 1
    if scan.at == start:
        scan.fail("a message id")
    scan.line_break()


def _outer_open(scan: _Scanner) -> None:
    scan.literal("<")
    if scan.run("<>\n") == 0:
        scan.fail("a display name")
    scan.literal(">")
    scan.line_break()


def _inner_open(scan: _Scanner) -> None:
    scan.literal("<")
    scan.tag()
    while scan.peek() == " ":
        scan.at += 1
        if scan.peek() not in _ATTR_START:
            scan.fail("an attribute name")
        scan.at += 1
        while scan.peek() in _ATTR_CHARS:
            scan.at += 1
        scan.literal("=")
        scan.literal('"')
        scan.run('"\n')
        scan.literal('"')
    if scan.peek() != ">":
        scan.fail("' '", "'>'")
    scan.at += 1
    scan.line_break()


def _closing_lines(scan: _Scanner) -> None:
    """The last two lines, read from the end of the text, then the line breaks after them."""
    text = scan.text
    head_end = scan.at
    end = len(text)
    while end > head_end and text[end - 1] == "\n":
        end -= 1  # the first of these is the one final line break a reader accepts
    last = text.rfind("\n", head_end, end)
    before = text.rfind("\n", head_end, last) if last >= 0 else -1
    if before < 0:
        raise _Wrong(len(text), "the content, then the two closing tag lines")
    scan.at = before + 1
    scan.literal("</")
    scan.tag()
    scan.literal(">")
    if scan.at != last:
        scan.fail("a line break")
    scan.at = last + 1
    scan.literal("</")
    if scan.run("<>\n") == 0:
        scan.fail("a display name")
    scan.literal(">")
    if scan.at != end:
        scan.fail("a line break", "the end of the message")
    if len(text) - end > 1:
        raise _Wrong(end + 1, "the end of the message")


def _found(text: str, offset: int) -> str:
    if offset >= len(text):
        return "the end of the message"
    if text[offset] == "\n":
        return "a line break"
    end = text.find("\n", offset)
    rest = text[offset:] if end < 0 else text[offset:end]
    return repr(rest) if len(rest) <= _QUOTED else repr(rest[:_QUOTED]) + "…"


def syntax_offset(text: str) -> tuple[int, tuple[str, ...]] | None:
    """The offset of the syntax error of ``text`` and what belonged there; None if the
    text has the form of an envelope (the post-parse checks may still reject it)."""
    scan = _Scanner(text)
    try:
        _header(scan)
        _id_line(scan)
        scan.line_break()
        _outer_open(scan)
        _inner_open(scan)
        _closing_lines(scan)
    except _Wrong as wrong:
        return wrong.offset, wrong.expected
    return None


def find_syntax_error(text: str) -> ParseError | None:
    """The ``syntax`` ParseError of ``text``, or None if the grammar accepts it."""
    found = syntax_offset(text)
    if found is None:
        return None
    offset, expected = found
    message = f"expected {' or '.join(expected)}, found {_found(text, offset)}"
    return error_at(text, "syntax", message, offset, expected)
