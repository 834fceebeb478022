"""The reference parser: grammar/envelope.lark through Lark (LALR, contextual lexer).

Lark decides whether the grammar accepts a text; where a text it rejects is wrong is
the specification's definition (``syntax_error``), not the place Lark's parser stopped.
Lark is imported on first use: ``parse`` never comes here unless the fast path and that
definition disagree, and importing it would add tens of milliseconds to the start of
every command.
"""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING

from teamwire._resources import data_path
from teamwire.envelope.checks import check_and_build, error_at
from teamwire.envelope.errors import ParseError
from teamwire.envelope.model import Envelope
from teamwire.envelope.syntax_error import find_syntax_error

if TYPE_CHECKING:
    from lark import Lark, Token, Tree
    from lark.exceptions import UnexpectedInput

# What a reader should be told instead of a terminal's internal name.
_FRIENDLY = {
    "HEADER_NAME": "a display name",
    "LABEL": "a message label",
    "ID": "a message id",
    "TAG_NAME": "a display name",
    "TAG": "a tag name",
    "ATTR_NAME": "an attribute name",
    "ATTR_VALUE": "a double-quoted attribute value",
    "BODY": "a line break, the content, then the two closing tags ending the message",
    "NL": "a line break",
    "FINAL_NL": "a final line break",
    "$END": "the end of the message",
}


@cache
def grammar_text() -> str:
    """The normative grammar's source text."""
    return data_path("grammar", "envelope.lark").read_text(encoding="utf-8")


@cache
def _parser() -> Lark:
    from lark import Lark

    return Lark(grammar_text(), parser="lalr", lexer="contextual")


def _describe(name: str) -> str:
    if name in _FRIENDLY:
        return _FRIENDLY[name]
    try:
        pattern = _parser().get_terminal(name).pattern
    except KeyError:
        return name
    return repr(pattern.value)


_QUOTED = 40
"""Characters of an unexpected token an error message quotes; a token can be a whole line."""


def _quoted(token: str) -> str:
    return repr(token) if len(token) <= _QUOTED else repr(token[:_QUOTED]) + "…"


def _syntax_error(text: str, exc: UnexpectedInput) -> ParseError:
    """The error of a text Lark rejected: where the specification places it, or, should the
    definition find nothing wrong (a bug the tests look for), where Lark stopped."""
    located = find_syntax_error(text)
    if located is not None:
        return located
    return _lark_error(text, exc)


def _lark_error(text: str, exc: UnexpectedInput) -> ParseError:
    from lark.exceptions import UnexpectedToken

    if isinstance(exc, UnexpectedToken):
        start = exc.token.start_pos
        offset = start if isinstance(start, int) else len(text)
        expected = exc.expected
        found = "the end of the message" if exc.token.type == "$END" else _quoted(str(exc.token))
    else:
        # Not reached with envelope.lark: its LALR parser reports every bad text as an
        # UnexpectedToken. Kept so that another UnexpectedInput (UnexpectedCharacters,
        # UnexpectedEOF) that a Lark version may raise still ends as an error with a position.
        at = getattr(exc, "pos_in_stream", None)  # -1 when Lark does not know it
        offset = at if isinstance(at, int) and 0 <= at <= len(text) else len(text)
        expected = getattr(exc, "allowed", None) or getattr(exc, "expected", None) or set()
        found = repr(text[offset]) if offset < len(text) else "the end of the message"
    wanted = sorted({_describe(name) for name in expected})
    message = f"expected {' or '.join(wanted) if wanted else 'nothing more'}, found {found}"
    return error_at(text, "syntax", message, offset, wanted)


def _token(tree: Tree[Token], index: int = 0) -> Token:
    from lark import Token

    tokens = [child for child in tree.children if isinstance(child, Token)]
    return tokens[index]


def parse_lark(text: str) -> Envelope:
    """Parse ``text`` with the reference grammar; raise ParseError if it is not an envelope."""
    from lark import Tree
    from lark.exceptions import LarkError, UnexpectedInput

    try:
        tree = _parser().parse(text)
    except UnexpectedInput as exc:
        raise _syntax_error(text, exc) from None
    except LarkError as exc:  # pragma: no cover - Lark's other errors are grammar bugs
        raise error_at(text, "syntax", str(exc), 0) from None
    parts: dict[str, Tree[Token]] = {}
    body = ""
    for child in tree.children:
        if isinstance(child, Tree):
            parts[str(child.data)] = child
        elif child.type == "BODY":
            body = str(child)[1:]
    header = parts["header"]
    receiver_tree = next((c for c in header.children if isinstance(c, Tree)), None)
    inner = parts["inner_open"]
    attributes = []
    for attr in inner.children:
        if isinstance(attr, Tree):
            name, value = _token(attr, 0), _token(attr, 1)
            attributes.append((str(name), str(value)[1:-1], _start(name)))
    outer_name = _token(parts["outer_open"])
    close_tag = _token(parts["inner_close"])
    close_outer = _token(parts["outer_close"])
    return check_and_build(
        text,
        sender=str(_token(header, 0)),
        receiver=str(_token(receiver_tree)) if receiver_tree is not None else None,
        label=str(_token(header, 1)),
        id_=str(_token(parts["id_line"])),
        outer=str(outer_name), outer_at=_start(outer_name),
        tag=str(_token(inner, 0)),
        attributes=attributes,
        content=body,
        close_tag=str(close_tag), close_tag_at=_start(close_tag),
        close_outer=str(close_outer), close_outer_at=_start(close_outer),
    )


def _start(token: Token) -> int:
    return token.start_pos if isinstance(token.start_pos, int) else 0
