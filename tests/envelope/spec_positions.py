"""Where a text that is not a well-formed envelope is wrong, written from the spec's text alone.

spec/01-envelope.md, "Error positions", turned into code another way than the library does it:
the library walks the text with a cursor; this oracle cuts the text into lines and, for each
line of the head and for the two closing lines, writes the language of *beginnings* of that
line as a regular expression. The longest beginning of a line that such an expression matches in
full is the part of the line some envelope could still start with (TW-ENV-031); the character
after it is the error. A line that is a beginning but not a whole line stops short: its error is
where it ends (TW-ENV-032, TW-ENV-033). Lookaheads in these expressions only ever see the
beginning being tested, which is what "no continuation can still be an envelope" means.

Nothing here imports the package's parsers or position functions.
"""

from __future__ import annotations

import re

Expected = tuple[str, int, int]
"""(code, line, column) of the one error a reader must report."""

# The grammar's pieces (spec chapter "Envelope", grammar reference; chapter "Names" for header names).
NAME = r"(?:(?! 的| 向 )[^\n])+"
LABEL = r"[^\n]+"
ID = r'[^\s<>"]+'
TAG = r"[A-Za-z][A-Za-z0-9_-]*"
TAG_NAME = r"[^<>\n]+"
ATTR_NAME = r"[A-Za-z_][A-Za-z0-9_.-]*"
ATTR = rf' {ATTR_NAME}="[^"\n]*"'

# Whole lines.
HEADER = re.compile(rf"来自 (?P<sender>{NAME})(?: 向 {NAME})? 的{LABEL}")
ID_LINE = re.compile(rf"id: {ID}")
EMPTY = re.compile("")
OUTER_OPEN = re.compile(rf"<(?P<name>{TAG_NAME})>")
INNER_OPEN = re.compile(rf"<(?P<tag>{TAG})(?P<attrs>(?:{ATTR})*)>")
INNER_CLOSE = re.compile(rf"</(?P<tag>{TAG})>")
OUTER_CLOSE = re.compile(rf"</(?P<name>{TAG_NAME})>")

# Every beginning of those lines, the empty one included.
_LABEL_PART = rf"(?: (?:的(?:{LABEL})?)?)?"
HEADER_START = re.compile(
    rf"(?:来(?:自(?: (?:{NAME}(?: (?:向(?: (?:{NAME}{_LABEL_PART})?)?|的(?:{LABEL})?)?)?)?)?)?)?")
ID_LINE_START = re.compile(rf"(?:i(?:d(?::(?: (?:{ID})?)?)?)?)?")
OUTER_OPEN_START = re.compile(rf"(?:<(?:{TAG_NAME}>?)?)?")
INNER_OPEN_START = re.compile(
    rf'(?:<(?:{TAG}(?:(?:{ATTR})*(?: (?:{ATTR_NAME}(?:=(?:"[^"\n]*)?)?)?|>)?)?)?)?')
INNER_CLOSE_START = re.compile(rf"(?:<(?:/(?:{TAG}>?)?)?)?")
OUTER_CLOSE_START = re.compile(rf"(?:<(?:/(?:{TAG_NAME}>?)?)?)?")

HEAD = ((HEADER_START, HEADER), (ID_LINE_START, ID_LINE), (EMPTY, EMPTY),
        (OUTER_OPEN_START, OUTER_OPEN), (INNER_OPEN_START, INNER_OPEN))


def wrong_column(line: str, start: re.Pattern[str], whole: re.Pattern[str]) -> int | None:
    """The 1-based column of the error in ``line``, None if it is a whole line.

    The longest beginning of ``line`` that ``start`` matches in full is what can still be
    continued; a line that is all beginning but not whole is wrong where it ends."""
    keep = len(line)
    while start.fullmatch(line[:keep]) is None:
        keep -= 1
    if keep < len(line):
        return keep + 1
    return None if whole.fullmatch(line) else len(line) + 1


def syntax_error(text: str) -> Expected | None:
    """The ``syntax`` error of ``text`` by TW-ENV-031 to TW-ENV-033; None if it has none."""
    lines = text.split("\n")  # only LF ends a line (TW-ENV-013, TW-ENV-026)
    for number, (start, whole) in enumerate(HEAD, start=1):
        line = lines[number - 1]
        column = wrong_column(line, start, whole)
        if column is not None:
            return ("syntax", number, column)
        if number == len(lines):  # a whole line, but the text ends before its LF
            return ("syntax", number, len(line) + 1)
    rest = lines[5:]
    breaks = 0  # the LFs the text ends with, after the head
    while len(rest) > 1 and rest[-1] == "":
        rest = rest[:-1]
        breaks += 1
    if len(rest) < 3:
        # Too few lines for the content and the two closing lines: the end of the text.
        return ("syntax", len(lines), len(lines[-1]) + 1)
    for offset, (start, whole) in ((2, (INNER_CLOSE_START, INNER_CLOSE)),
                                   (1, (OUTER_CLOSE_START, OUTER_CLOSE))):
        column = wrong_column(rest[-offset], start, whole)
        if column is not None:
            return ("syntax", 5 + len(rest) - offset + 1, column)
    if breaks > 1:
        # One final LF is accepted (TW-ENV-012); the second is the error. It ends the line
        # after the outer close tag line, an empty line: column 1.
        return ("syntax", 5 + len(rest) + 1, 1)
    return None


def checked_error(text: str) -> Expected | None:
    """The first error of the checks after the parse (TW-ENV-029, TW-ENV-030), for a text
    without a syntax error."""
    lines = text.split("\n")
    if lines[-1] == "":
        lines = lines[:-1]
    header = HEADER.fullmatch(lines[0])
    outer_open = OUTER_OPEN.fullmatch(lines[3])
    inner_open = INNER_OPEN.fullmatch(lines[4])
    inner_close = INNER_CLOSE.fullmatch(lines[-2])
    outer_close = OUTER_CLOSE.fullmatch(lines[-1])
    assert header and outer_open and inner_open and inner_close and outer_close
    sender = header.group("sender")
    if outer_open.group("name") != sender:
        return ("name-mismatch", 4, 2)
    seen: set[str] = set()
    for attribute in re.finditer(rf' ({ATTR_NAME})="[^"\n]*"', inner_open.group("attrs")):
        if attribute.group(1) in seen:
            return ("duplicate-attribute", 5, inner_open.start("attrs") + attribute.start(1) + 1)
        seen.add(attribute.group(1))
    if inner_close.group("tag") != inner_open.group("tag"):
        return ("name-mismatch", len(lines) - 1, 3)
    if outer_close.group("name") != sender:
        return ("name-mismatch", len(lines), 3)
    return None


def first_error(text: str) -> Expected | None:
    """The one error a reader reports for ``text`` (TW-ENV-028), None for a well-formed one."""
    return syntax_error(text) or checked_error(text)


def encoding_error(data: bytes) -> Expected | None:
    """TW-ENV-034: the end of the longest prefix of ``data`` that is well-formed UTF-8."""
    for keep in range(len(data), -1, -1):
        try:
            prefix = data[:keep].decode("utf-8")
        except UnicodeDecodeError:
            continue
        if keep == len(data):
            return None
        lines = prefix.split("\n")
        return ("encoding", len(lines), len(lines[-1]) + 1)
    raise AssertionError("the empty prefix always decodes")
