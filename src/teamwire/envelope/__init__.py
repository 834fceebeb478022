"""The envelope: the text form of every protocol message.

``parse`` turns text into an ``Envelope`` (or raises ``ParseError`` with a
position), ``render`` turns it back into canonical text. The grammar in
``grammar/envelope.lark`` is normative; a regular-expression fast path accepts
the same language, and a text it rejects is placed by the specification's
definition of error positions (``syntax_error``), as the Lark parser places it too.
"""

from __future__ import annotations

from teamwire.envelope.errors import ParseError, position
from teamwire.envelope.fast_parser import parse_fast
from teamwire.envelope.header import presents_as_header
from teamwire.envelope.ids import IdAllocator, id_problem
from teamwire.envelope.lark_parser import grammar_text, parse_lark
from teamwire.envelope.model import Envelope
from teamwire.envelope.names import (
    LEADER_NAME,
    LEADER_ROLE_ID,
    DisplayName,
    InvalidNameError,
    abbreviation,
    format_display_name,
    is_role_id,
    name_problem,
    parse_display_name,
)
from teamwire.envelope.render import RenderError, render
from teamwire.envelope.syntax_error import find_syntax_error
from teamwire.envelope.types import (
    ASTRION_COMPLETION_LABEL,
    MessageType,
    Placement,
    Profile,
    Role,
)

__all__ = [
    "ASTRION_COMPLETION_LABEL",
    "LEADER_NAME",
    "LEADER_ROLE_ID",
    "DisplayName",
    "Envelope",
    "IdAllocator",
    "InvalidNameError",
    "MessageType",
    "ParseError",
    "Placement",
    "Profile",
    "RenderError",
    "Role",
    "abbreviation",
    "format_display_name",
    "grammar_text",
    "id_problem",
    "is_envelope",
    "is_role_id",
    "name_problem",
    "parse",
    "parse_display_name",
    "parse_lark",
    "render",
]

def parse(text: str | bytes) -> Envelope:
    """Parse one envelope; raise ParseError (with line and column) if ``text`` is not one.

    Bytes are decoded as UTF-8 first; undecodable bytes are a ParseError with
    code ``encoding``. No other exception escapes for any input.
    """
    if isinstance(text, bytes):
        text = _decode(text)
    envelope = parse_fast(text)
    if envelope is not None:
        return envelope
    error = find_syntax_error(text)
    if error is not None:
        raise error
    # The fast path rejected a text the definition finds no fault with: a disagreement the
    # tests look for; the grammar decides.
    return parse_lark(text)


def is_envelope(text: str) -> bool:
    """True if ``text`` presents itself as a protocol message: its first line is a header.

    A message that presents itself so but does not parse is malformed, not a
    human's message; a linter reports it.
    """
    return presents_as_header(text)


def _decode(data: bytes) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        prefix = data[: exc.start].decode("utf-8", errors="replace")
        line, column = position(prefix, len(prefix))
        raise ParseError("encoding", f"invalid UTF-8 at byte {exc.start}: {exc.reason}",
                         line=line, column=column, offset=len(prefix)) from None
