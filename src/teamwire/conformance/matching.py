"""The matching language of expected values in scenario vectors.

An expected value is compared with what the router sent exactly, except where it holds a
marker: an object member ``<further members allowed>``, ``{"<in any order>": [...]}``,
``{"<if present>": value}``, a tool result member ``<any result if the tool was offered>``, or
a placeholder inside a text (``<any id>``, ``<10 hex digits>``, ``<any text>``). Chapter 13 of
the specification defines each; this module is how the reference harness reads them.
"""

from __future__ import annotations

import json
import re
from typing import Any

FURTHER_MEMBERS = "<further members allowed>"
"""A member of an expected object (value true) that lets the router's object carry members
beyond the expected ones, where the specification allows them (TW-TOOL-017); the expected
members are compared exactly."""

ANY_ORDER = "<in any order>"
"""An expected value ``{ANY_ORDER: [...]}``: an array holding these items in any order, where
the specification fixes no order (the roles of list_agents, TW-TOOL-019)."""

IF_PRESENT = "<if present>"
"""An expected member's value ``{IF_PRESENT: value}``: the router may leave the member out,
where the specification makes it optional; when it sends it, it is compared with ``value``
(the ``result`` of get_sub_agent_status, TW-TOOL-017, TW-RES-013)."""

UNLESS_OFFERED = "<any result if the tool was offered>"
"""A member of an expected tool result (value: the tool's name): the result is expected only
when the model call that made the tool call did not offer that tool; a base tool a router
offers runs, and its result is the router's own (TW-TOOL-041)."""


def has_pattern(value: Any) -> bool:
    if isinstance(value, dict):
        return FURTHER_MEMBERS in value or ANY_ORDER in value or IF_PRESENT in value \
            or any(has_pattern(v) for v in value.values())
    if isinstance(value, list):
        return any(has_pattern(v) for v in value)
    return False


def matches(expected: Any, received: Any) -> bool:
    """Whether ``received`` is a value the pattern ``expected`` allows (FURTHER_MEMBERS,
    ANY_ORDER and IF_PRESENT at any depth; anything else compared exactly)."""
    if isinstance(expected, dict) and ANY_ORDER in expected:
        items = expected[ANY_ORDER]
        if not isinstance(received, list) or len(received) != len(items):
            return False
        left = list(received)
        for item in items:
            found = next((i for i, value in enumerate(left) if matches(item, value)), None)
            if found is None:
                return False
            left.pop(found)
        return True
    if isinstance(expected, dict) and IF_PRESENT in expected:
        return matches(expected[IF_PRESENT], received)
    if isinstance(expected, dict):
        further = expected.get(FURTHER_MEMBERS) is True
        named = {k: v for k, v in expected.items() if k != FURTHER_MEMBERS}
        optional = {k for k, v in named.items() if isinstance(v, dict) and IF_PRESENT in v}
        return isinstance(received, dict) \
            and (further or set(named) - optional <= set(received) <= set(named)) \
            and all(k in received and matches(v, received[k]) if k not in optional
                    else k not in received or matches(v, received[k])
                    for k, v in named.items())
    if isinstance(expected, list):
        return isinstance(received, list) and len(expected) == len(received) \
            and all(matches(e, r) for e, r in zip(expected, received, strict=True))
    if isinstance(expected, bool) or isinstance(received, bool):
        return expected is received  # JSON's true is not 1
    return bool(expected == received)


def _pointer(path: tuple[str | int, ...]) -> str:
    """The JSON pointer (RFC 6901) of ``path``; the root is ``""``, shown as ``/``."""
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in path) or "/"


def _short(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 120 else f"{text[:117]}..."


def first_difference(expected: Any, received: Any,
                     path: tuple[str | int, ...] = ()) -> str | None:
    """Where ``received`` first departs from the pattern ``expected``, as a JSON pointer
    with what each side holds there (members in the expected order, items by index); None
    when they match. A marker the harness reads (any order, if present) is shown whole."""
    if matches(expected, received):
        return None
    if isinstance(expected, dict) and ANY_ORDER not in expected and IF_PRESENT not in expected \
            and isinstance(received, dict):
        further = expected.get(FURTHER_MEMBERS) is True
        for key, value in expected.items():
            if key == FURTHER_MEMBERS:
                continue
            optional = isinstance(value, dict) and IF_PRESENT in value
            if key not in received:
                if optional:
                    continue
                return f"{_pointer((*path, key))}: expected {_short(value)}, received nothing"
            found = first_difference(value[IF_PRESENT] if optional else value, received[key],
                                     (*path, key))
            if found is not None:
                return found
        extra = [k for k in received if k not in expected]
        if extra and not further:
            return (f"{_pointer((*path, extra[0]))}: expected nothing, received "
                    f"{_short(received[extra[0]])}")
    if isinstance(expected, list) and isinstance(received, list):
        for index, (want, got) in enumerate(zip(expected, received, strict=False)):
            found = first_difference(want, got, (*path, index))
            if found is not None:
                return found
        if len(expected) != len(received):
            return (f"{_pointer(path)}: expected {len(expected)} items, received "
                    f"{len(received)}")
    return f"{_pointer(path)}: expected {_short(expected)}, received {_short(received)}"


def plain(value: Any) -> Any:
    """A pattern as the value it describes, for a report: markers dropped."""
    if isinstance(value, dict) and ANY_ORDER in value:
        return [plain(v) for v in value[ANY_ORDER]]
    if isinstance(value, dict) and IF_PRESENT in value:
        return plain(value[IF_PRESENT])
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items() if k != FURTHER_MEMBERS}
    if isinstance(value, list):
        return [plain(v) for v in value]
    return value


def with_further_members(wanted: list[Any], got: list[Any]) -> list[Any]:
    """The expected messages with each result that holds a pattern (FURTHER_MEMBERS,
    ANY_ORDER) taken as what the router sent when that matches it, and as the plain value
    otherwise."""
    sent = {m.get("tool_call_id"): m.get("json") for m in got
            if isinstance(m, dict) and m.get("role") == "tool"}
    out = []
    for message in wanted:
        result = message.get("json") if isinstance(message, dict) else None
        if has_pattern(result):
            received = sent.get(message.get("tool_call_id"))
            message = {**message, "json": received if matches(result, received)
                       else plain(result)}
        out.append(message)
    return out


PLACEHOLDERS: dict[str, str] = {
    "<any id>": "[a-z][a-z0-9_]*",
    "<10 hex digits>": "[0-9a-f]{10}",
    "<any text>": ".*",
}
"""What an expected text may hold where the specification leaves a part of it to the router
or to chance: an id the router chooses, the ten hex digits of an id the router draws
(TW-PROF-027), text whose words are the router's own. The rest of the text is compared
exactly."""

_PLACEHOLDER = re.compile("|".join(re.escape(p) for p in PLACEHOLDERS))


def placeholder_pattern(text: str) -> re.Pattern[str] | None:
    """The pattern an expected text with placeholders stands for; None without any."""
    parts = _PLACEHOLDER.split(text)
    if len(parts) == 1:
        return None
    found = _PLACEHOLDER.findall(text)
    pattern = "".join(re.escape(part) + (PLACEHOLDERS[found[i]] if i < len(found) else "")
                      for i, part in enumerate(parts))
    return re.compile(pattern, re.DOTALL)


def with_placeholders(wanted: list[Any], got: list[Any]) -> list[Any]:
    """The expected messages with each text that holds placeholders taken as the text the
    router appended at the same place, when that text fits it."""
    out = []
    for index, message in enumerate(wanted):
        received = got[index] if index < len(got) else None
        if isinstance(message, dict) and isinstance(received, dict) \
                and isinstance(message.get("content"), str) \
                and isinstance(received.get("content"), str):
            shape = placeholder_pattern(message["content"])
            if shape is not None and shape.fullmatch(received["content"]):
                message = {**message, "content": received["content"]}
        out.append(message)
    return out
