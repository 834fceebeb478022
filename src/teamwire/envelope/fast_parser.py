"""The fast path: one anchored regular expression that accepts exactly the grammar's language.

The content is matched greedily and gives back only the last two lines, so it
is never scanned forward. The fast path only ever accepts: when it does not
match, the caller asks ``syntax_error`` where the text is wrong, as the Lark
parser does for a text it rejects. A differential property test keeps the fast
path, the Lark parser and that definition in agreement.
"""

from __future__ import annotations

import re

from teamwire.envelope.checks import check_and_build
from teamwire.envelope.header import NAME_PATTERN
from teamwire.envelope.model import Envelope

_HEADER_NAME = NAME_PATTERN
_HEAD = re.compile(
    r"来自 (?P<sender>" + _HEADER_NAME + r")(?: 向 (?P<receiver>" + _HEADER_NAME + r"))?"
    r" 的(?P<label>[^\n]+)\n"
    r"id: (?P<id>[^\s<>\"]+)\n"
    r"\n"
    r"<(?P<outer>[^<>\n]+)>\n"
    r"<(?P<tag>[A-Za-z][A-Za-z0-9_-]*)(?P<attrs>(?: [A-Za-z_][A-Za-z0-9_.-]*=\"[^\"\n]*\")*)>\n"
)
_TAIL = re.compile(r"\n</(?P<ctag>[A-Za-z][A-Za-z0-9_-]*)>\n</(?P<couter>[^<>\n]+)>\n?")
_ATTR = re.compile(r" ([A-Za-z_][A-Za-z0-9_.-]*)=\"([^\"\n]*)\"")
# The whole of an envelope whose names agree, in one match: the head as above with the
# outer tag required to repeat the sender, then the content and the closing lines. Names
# hold no line break, so the closing lines can only be the text's last two (a single
# final line break aside); the greedy content reaches the end at once and backs up to
# them.
_WHOLE = re.compile(
    r"来自 (?P<sender>" + _HEADER_NAME + r")(?: 向 (?P<receiver>" + _HEADER_NAME + r"))?"
    r" 的(?P<label>[^\n]+)\n"
    r"id: (?P<id>[^\s<>\"]+)\n"
    r"\n"
    r"<(?P=sender)>\n"
    r"<(?P<tag>[A-Za-z][A-Za-z0-9_-]*)(?P<attrs>(?: [A-Za-z_][A-Za-z0-9_.-]*=\"[^\"\n]*\")*)>\n"
    r"(?P<content>(?s:.*))\n</(?P=tag)>\n</(?P=sender)>\n?\Z"
)


Fields = tuple[str, str | None, str, str, str, tuple[tuple[str, str], ...], str]
"""(sender, receiver, label, id, tag, attributes, content): an envelope's parts, unbuilt."""


def scan(text: str) -> Fields | None:
    """The parts of the envelope ``text`` holds, without building an Envelope.

    Returns None unless the fast path accepts ``text`` and the post-parse checks
    pass (names agree, no attribute twice); ``parse_fast`` or ``parse`` then give
    the envelope or the error. The result equals the fields of ``parse(text)``.
    """
    whole = _WHOLE.match(text)
    if whole is None:
        return None
    sender, receiver, label, id_, tag, attrs, content = whole.groups()
    if "<" in sender or ">" in sender:
        return None  # a tag name holds neither, so the outer tags cannot repeat the sender
    attributes: tuple[tuple[str, str], ...] = ()
    if attrs:
        attributes = tuple(_ATTR.findall(attrs))
        if len({name for name, _ in attributes}) != len(attributes):
            return None
    return sender, receiver, label, id_, tag, attributes, content


def parse_fast(text: str) -> Envelope | None:
    """The envelope ``text`` holds, or None when the fast path does not accept it.

    May still raise ParseError from the post-parse checks (name mismatch,
    duplicate attribute), exactly as the reference parser does.
    """
    fields = scan(text)
    if fields is not None:
        sender, receiver, label, id_, tag, attributes, content = fields
        return Envelope(sender, label, id_, tag, content, attributes, receiver)
    # Not the common case: a syntax the checks reject, or a text the fast path leaves
    # to the reference parser; redo the match so that errors can say where.
    head = _HEAD.match(text)
    if head is None:
        return None
    # The content ends where the last two lines begin; a single final line
    # break is allowed and is not a line of its own.
    end = len(text) - 1 if text.endswith("\n") else len(text)
    last = text.rfind("\n", 0, end)
    tail_at = text.rfind("\n", 0, last) if last > 0 else -1
    body_at = head.end()
    if tail_at < body_at:
        return None
    tail = _TAIL.fullmatch(text, tail_at)
    if tail is None:
        return None
    content = text[body_at:tail_at]
    sender, receiver, label, id_, outer, tag, attrs = head.groups()
    close_tag, close_outer = tail.groups()
    placed: list[tuple[str, str, int]] = []
    if attrs:
        attrs_at = head.start("attrs")
        placed = [(a.group(1), a.group(2), attrs_at + a.start(1)) for a in _ATTR.finditer(attrs)]
    return check_and_build(
        text, sender=sender, receiver=receiver, label=label, id_=id_, outer=outer,
        outer_at=head.start("outer"), tag=tag, attributes=placed, content=content,
        close_tag=close_tag, close_tag_at=tail.start("ctag"),
        close_outer=close_outer, close_outer_at=tail.start("couter"),
    )
