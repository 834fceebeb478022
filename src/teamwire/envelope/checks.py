"""Checks made after the grammar accepts a text; shared by both parsers so they agree."""

from __future__ import annotations

from collections.abc import Sequence

from teamwire.envelope.errors import ParseError, caret_context, position
from teamwire.envelope.model import Envelope


def error_at(text: str, code: str, message: str, offset: int,
             expected: Sequence[str] = ()) -> ParseError:
    """A ParseError at character ``offset`` of ``text`` with position and context filled in."""
    line, column = position(text, offset)
    return ParseError(code, message, line=line, column=column, offset=offset,
                      expected=expected, context=caret_context(text, offset))


def check_and_build(text: str, *, sender: str, receiver: str | None, label: str, id_: str,
                    outer: str, outer_at: int, tag: str, attributes: list[tuple[str, str, int]],
                    content: str, close_tag: str, close_tag_at: int, close_outer: str,
                    close_outer_at: int) -> Envelope:
    """Apply the post-parse checks and build the Envelope.

    The ``*_at`` offsets point at the names in ``text`` so errors can say where.
    Checked in text order, so both parsers report the same first error.
    """
    if outer != sender:
        raise error_at(text, "name-mismatch",
                       f"outer tag <{outer}> does not match the header's sender {sender!r}",
                       outer_at, [sender])
    seen: set[str] = set()
    for name, _value, at in attributes:
        if name in seen:
            raise error_at(text, "duplicate-attribute", f"attribute {name!r} is given twice", at)
        seen.add(name)
    if close_tag != tag:
        raise error_at(text, "name-mismatch",
                       f"closing tag </{close_tag}> does not match the open tag <{tag}>",
                       close_tag_at, [tag])
    if close_outer != sender:
        raise error_at(text, "name-mismatch",
                       f"closing tag </{close_outer}> does not match the sender {sender!r}",
                       close_outer_at, [sender])
    return Envelope(sender=sender, label=label, id=id_, tag=tag, content=content,
                    attributes=tuple((n, v) for n, v, _ in attributes), receiver=receiver)
