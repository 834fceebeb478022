"""Objects that name a member twice: JSON leaves their meaning to each reader.

Some readers keep the first value of a repeated name and others the last, so two
programs reading one document could act on different data. The envelope CLI refuses
such input, the router fails such tool arguments (TW-TOOL-038) and lint reports them
(TW418); all three find them here.
"""

from __future__ import annotations

import json
import re
from typing import Any

_STRING_OR_PUNCTUATION = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[{}\[\]:,]')


class RepeatedMemberError(ValueError):
    """An object of the document names one member twice."""


def unique_members(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """An ``object_pairs_hook`` for ``json.loads`` that raises RepeatedMemberError on a
    repeated name."""
    members = dict(pairs)
    if len(members) != len(pairs):
        raise RepeatedMemberError
    return members


def repeated_member(text: str) -> tuple[str, int] | None:
    """The first member name that an object in the JSON ``text`` repeats, with the offset
    of its second occurrence, or None.

    Names are compared decoded (``"a"`` and ``"\\u0061"`` are one name), at any depth;
    an explicit stack walks the strings and punctuation, so nesting costs no recursion.
    ``text`` must be valid JSON.
    """
    # One set of names per open container (None for an array).
    names: list[set[str] | None] = []
    expect_key = False
    for match in _STRING_OR_PUNCTUATION.finditer(text):
        token = match.group()
        first = token[0]
        if first == '"':
            if expect_key:
                seen = names[-1]
                assert seen is not None
                name = json.loads(token) if "\\" in token else token[1:-1]
                if name in seen:
                    return name, match.start()
                seen.add(name)
                expect_key = False
        elif first == "{":
            names.append(set())
            expect_key = True
        elif first == ",":
            expect_key = names[-1] is not None
        elif first == "[":
            names.append(None)
        elif first == "}" or first == "]":
            names.pop()
    return None
