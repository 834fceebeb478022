"""The one error a parse can end in."""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence


class ParseError(ValueError):
    """Text that is not a well-formed envelope.

    ``code`` says which check failed: ``syntax`` (the grammar), ``name-mismatch``
    (header, outer and closing tag names differ), ``duplicate-attribute`` or
    ``encoding`` (bytes that are not UTF-8). ``line`` and ``column`` are 1-based
    and point into the text; ``offset`` is the 0-based character index.
    """

    def __init__(self, code: str, message: str, *, line: int, column: int, offset: int,
                 expected: Sequence[str] = (), context: str = "") -> None:
        self.code = code
        self.message = message
        self.line = line
        self.column = column
        self.offset = offset
        self.expected = tuple(expected)
        self.context = context
        super().__init__(self.__str__())

    def __str__(self) -> str:
        text = f"line {self.line}, column {self.column}: {self.message}"
        if self.context:
            text += "\n" + self.context
        return text

    def to_json(self) -> dict[str, object]:
        """A JSON-ready mapping (the CLI's and the vectors' error form)."""
        return {"code": self.code, "message": self.message, "line": self.line,
                "column": self.column, "offset": self.offset, "expected": list(self.expected)}


def position(text: str, offset: int) -> tuple[int, int]:
    """1-based (line, column) of character ``offset`` in ``text``."""
    line = text.count("\n", 0, offset) + 1
    start = text.rfind("\n", 0, offset) + 1
    return line, offset - start + 1


def caret_context(text: str, offset: int, span: int = 40) -> str:
    """The line around ``offset`` with a caret under it, shortened to about ``span`` columns."""
    start = text.rfind("\n", 0, offset) + 1
    end = text.find("\n", offset)
    if end == -1:
        end = len(text)
    lo = max(start, offset - span)
    hi = min(end, offset + span)
    snippet = text[lo:hi].replace("\r", "␍").replace("\t", " ")
    # Wide (CJK) characters take two terminal columns: the caret must follow them.
    indent = sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text[lo:offset])
    return f"{snippet}\n{' ' * indent}^"
