"""The header line of an envelope, ``来自 {sender}[ 向 {receiver}] 的{label}``, read one way.

The parser, the test for whether a text presents itself as an envelope, and the search for
forged header lines inside other text all build on the patterns here, so that they agree on
what a header name is: a run of characters without a line break in which no space starts
`` 向 `` or `` 的`` (TW-ENV-003).
"""

from __future__ import annotations

import re

from teamwire.envelope.types import ASTRION_COMPLETION_LABEL, MessageType

HEADER_MARK = "来自 "
"""Every header starts so; a cheap substring test before any regular expression."""

MARK_KEY = HEADER_MARK[1]
"""自: rarer than 来 and, unlike it, no ASCII character shares its low byte, so that
``str.find`` (memchr on that byte) skips ASCII-heavy text fast."""

NAME_PATTERN = r"(?! 向 | 的)(?=[^\n])[^\n ]*(?: (?!向 |的)[^\n ]*)*"
"""A header name as a regular expression. The loop is unrolled (a look-ahead on every
character is slow): runs without a space, each space checked once; every repetition starts
with a space, so a failing match backtracks in linear time."""

LABELS = tuple(sorted({t.label for t in MessageType} | {ASTRION_COMPLETION_LABEL}))
"""Every label a header of either profile may carry."""

HEADER_LINE = re.compile(r"^来自 " + NAME_PATTERN + r"(?: 向 " + NAME_PATTERN + r")? 的(?:"
                         + "|".join(LABELS) + r")\r?$", re.MULTILINE)
"""A line, anywhere in a text, that reads as a header with one of the known labels."""

_PRESENTS = re.compile(r"来自 [^\n]*? 的[^\n]")
_search_mark = re.compile(HEADER_MARK).search


def presents_as_header(text: str) -> bool:
    """Whether the first line of ``text`` presents itself as a header: ``来自 ``, then on the
    same line `` 的`` and a character, whatever the names and label (a header that then fails
    to parse is a malformed envelope, not a human's message)."""
    return _PRESENTS.match(text) is not None


def has_mark(text: str, start: int = 0) -> bool:
    """Whether ``text`` holds HEADER_MARK at or after ``start``.

    ASCII text cannot (``str.isascii`` is a flag test); other text is searched for the
    mark's second character first, and for the mark itself only from there.
    """
    if text.isascii():
        return False
    at = text.find(MARK_KEY, start + 1)
    return at >= 0 and _search_mark(text, at - 1) is not None


def header_line_offset(text: str, start: int = 0) -> int | None:
    """Offset of the first line at or after ``start`` that reads as a header, or None."""
    if not has_mark(text, start):
        return None
    match = HEADER_LINE.search(text, start)
    return None if match is None else match.start()
