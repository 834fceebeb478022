"""The fast path: one anchored regular expression that accepts exactly the grammar's language.

It only ever accepts; when it does not match, the caller asks the Lark parser
for the error, so positions and messages come from the reference grammar.
A differential property test keeps the two in agreement.
"""

from __future__ import annotations

import re

from teamwire.envelope.checks import check_and_build
from teamwire.envelope.model import Envelope

_HEADER_NAME = r"(?:(?! 向 | 的)[^\n])+"
_ENVELOPE = re.compile(
    r"来自 (?P<sender>" + _HEADER_NAME + r")(?: 向 (?P<receiver>" + _HEADER_NAME + r"))?"
    r" 的(?P<label>[^\n]+)\n"
    r"id: (?P<id>[^\s<>\"]+)\n"
    r"\n"
    r"<(?P<outer>[^<>\n]+)>\n"
    r"<(?P<tag>[A-Za-z][A-Za-z0-9_-]*)(?P<attrs>(?: [A-Za-z_][A-Za-z0-9_.-]*=\"[^\"\n]*\")*)>\n"
    r"(?P<content>(?s:.*))\n"
    r"</(?P<ctag>[A-Za-z][A-Za-z0-9_-]*)>\n"
    r"</(?P<couter>[^<>\n]+)>\n?\Z"
)
_ATTR = re.compile(r" ([A-Za-z_][A-Za-z0-9_.-]*)=\"([^\"\n]*)\"")


def parse_fast(text: str) -> Envelope | None:
    """The envelope ``text`` holds, or None when the regex does not match.

    May still raise ParseError from the post-parse checks (name mismatch,
    duplicate attribute), exactly as the reference parser does.
    """
    m = _ENVELOPE.match(text)
    if m is None:
        return None
    attrs_at = m.start("attrs")
    attributes = [(a.group(1), a.group(2), attrs_at + a.start(1))
                  for a in _ATTR.finditer(m.group("attrs"))]
    return check_and_build(
        text,
        sender=m.group("sender"), receiver=m.group("receiver"), label=m.group("label"),
        id_=m.group("id"), outer=m.group("outer"), outer_at=m.start("outer"),
        tag=m.group("tag"), attributes=attributes, content=m.group("content"),
        close_tag=m.group("ctag"), close_tag_at=m.start("ctag"),
        close_outer=m.group("couter"), close_outer_at=m.start("couter"),
    )
