"""JSON that readers may read differently: objects that name a member twice, deep nesting.

JSON leaves the meaning of a repeated name to each reader: some keep the first value
and others the last, so two programs reading one document could act on different data.
The envelope CLI refuses such input, the router fails such tool arguments (TW-TOOL-038)
and lint reports them (TW418, and TW011 anywhere in a transcript when selected); all find
them here. Readers also stop at different depths, so tool arguments are bounded
(TW-TOOL-039).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from teamwire.json_text import TOKEN, string_value

ARGUMENTS_DEPTH_LIMIT = 64
"""The deepest nesting tool arguments may have, the arguments object being level 1
(TW-TOOL-039)."""


def _containers(value: Any) -> Iterator[tuple[dict[str, Any] | list[Any], int]]:
    """Every object and array in ``value`` (itself included) with its level, ``value``
    being level 1; an explicit stack, as a value may nest as deep as its decoder allowed."""
    stack = [(value, 1)]
    while stack:
        item, level = stack.pop()
        if type(item) is dict:
            items: Any = item.values()
        elif type(item) is list:
            items = item
        else:
            continue
        yield item, level
        stack.extend((v, level + 1) for v in items if type(v) is dict or type(v) is list)


def depth(value: Any) -> int:
    """How many levels of objects and arrays ``value`` nests (0 for a scalar)."""
    return max((level for _item, level in _containers(value)), default=0)


def member_count(value: Any) -> int:
    """The members of every object in ``value``, at any depth."""
    return sum(len(item) for item, _level in _containers(value) if type(item) is dict)


class RepeatedMemberError(ValueError):
    """An object of the document names one member twice."""


def unique_members(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """An ``object_pairs_hook`` for ``json.loads`` that raises RepeatedMemberError on a
    repeated name."""
    members = dict(pairs)
    if len(members) != len(pairs):
        raise RepeatedMemberError
    return members


def has_repeats(text: str) -> bool:
    """Whether an object in the JSON ``text`` may name a member twice: False only when none
    does. The C decoder tells several times faster than ``repeats`` scans, so ``repeats``
    need only run on the rare text that has some (or that nests too deep to decode)."""
    try:
        json.loads(text, object_pairs_hook=unique_members)
    except RepeatedMemberError:
        return True
    except (ValueError, RecursionError):
        return True  # not for this decoder (nested too deep): the scan decides
    return False


def repeats(text: str) -> Iterator[tuple[str, int, tuple[str | int, ...]]]:
    """Every repeated member name in the JSON ``text``: the name, the offset of its repeat,
    and the path (member names and array indices) from the top to the object holding it.

    Names are compared decoded (``"a"`` and ``"\\u0061"`` are one name), at any depth; an
    explicit stack walks the strings and punctuation, so nesting costs no recursion.
    ``text`` must be valid JSON.
    """
    # Per open container: the names an object has named (None for an array), and where the
    # walk is in it (the member name being read, or the index of the element).
    names: list[set[str] | None] = []
    places: list[str | int] = []
    expect_key = False
    for match in TOKEN.finditer(text):
        token = match.group()
        first = token[0]
        if first == '"':
            if expect_key:
                seen = names[-1]
                assert seen is not None
                name = string_value(token)
                if name in seen:
                    yield name, match.start(), tuple(places[:-1])
                seen.add(name)
                places[-1] = name
                expect_key = False
        elif first == "{":
            names.append(set())
            places.append("")
            expect_key = True
        elif first == ",":
            expect_key = names[-1] is not None
            if not expect_key:
                places[-1] = int(places[-1]) + 1
        elif first == "[":
            names.append(None)
            places.append(0)
        elif first == "}" or first == "]":
            names.pop()
            places.pop()
            expect_key = False


def repeated_member(text: str) -> tuple[str, int] | None:
    """The first member name that an object in the JSON ``text`` repeats, with the offset
    of its second occurrence, or None (``text`` must be valid JSON)."""
    for name, offset, _path in repeats(text):
        return name, offset
    return None


def json_type(value: object) -> str:
    """The JSON name of a decoded value's type, for messages."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__
