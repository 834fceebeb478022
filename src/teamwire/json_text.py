"""JSON text as written: its tokens, and JSON pointers (RFC 6901) into it.

One tokenizer serves every scan of JSON text that must not decode it (finding a member named
twice, placing a finding on the line its value starts): a string of any length is one token,
punctuation is one token each, and any other run (a number, ``true``, ``false``, ``null``) is
one token. Scans walk it with an explicit stack, so nesting costs no recursion.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable

TOKEN = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[{}\[\],:]|[^\s{}\[\],:"]+', re.DOTALL)
"""A token of JSON text: a string, one punctuation character, or a run of anything else."""


def string_value(token: str) -> str:
    """The text a string token stands for (escapes decoded; the token's inside as written if
    it is not a valid JSON string)."""
    if "\\" not in token:
        return token[1:-1]
    try:
        value = json.loads(token)
    except ValueError:
        return token[1:-1]
    return value if isinstance(value, str) else token[1:-1]


def escape_pointer_token(token: str) -> str:
    """One reference token of a JSON pointer: ``~`` written ``~0``, ``/`` written ``~1``."""
    if "~" in token or "/" in token:
        return token.replace("~", "~0").replace("/", "~1")
    return token


def unescape_pointer_token(token: str) -> str:
    """The member name or index a reference token stands for (``~1`` first, then ``~0``)."""
    if "~" in token:
        return token.replace("~1", "/").replace("~0", "~")
    return token


def json_pointer(parts: Iterable[str | int]) -> str:
    """The JSON pointer of a path of member names and array indices (``""`` for the top)."""
    return "".join("/" + escape_pointer_token(str(part)) for part in parts)
