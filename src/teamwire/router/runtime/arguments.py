"""Validation of tool-call arguments against the tools' JSON Schemas.

The schemas do most of the work; this module adds what a JSON Schema
validator cannot say the way the specification means it: an "integer" is a
JSON number written without fraction or exponent (``1.0`` and ``1e0`` are
not integers, TW-TOOL-023), text arguments must hold a character other than
white space (TW-TOOL-024), every string must be valid Unicode (a lone
surrogate escape such as ``"\\ud800"`` could be neither stored nor rendered),
no object may name a member twice (TW-TOOL-038: JSON readers differ on
which value wins), and arguments nest at most 64 levels (TW-TOOL-039).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from functools import cache
from typing import Any

from jsonschema import Draft202012Validator

from teamwire import schemas
from teamwire.json_members import (
    ARGUMENTS_DEPTH_LIMIT,
    RepeatedMemberError,
    depth,
    repeated_member,
    unique_members,
)


def tool_definitions() -> dict[str, list[dict[str, Any]]]:
    """The strict profile's tool sets: ``leader``, ``sub_agent`` and ``base``."""
    data = schemas.tool_set("strict")
    return {key: list(data.get(key, [])) for key in ("leader", "sub_agent", "base")}


@cache
def _validator(tool: str) -> Draft202012Validator | None:
    try:
        return schemas.tool_arguments_validator(tool, "strict")
    except schemas.UnknownToolError:
        return None  # a base tool: the host that implements it checks its arguments


@cache
def _text_parameters(tool: str) -> tuple[str, ...]:
    """The text parameters of ``tool`` that must hold a character other than white space:
    those its schema requires to be non-empty (TW-TOOL-024). An argument the tool does not
    define is ignored (TW-TOOL-025), blank or not."""
    validator = _validator(tool)
    schema = validator.schema if validator is not None else None
    defined = schema.get("properties", {}) if isinstance(schema, dict) else {}
    return tuple(name for name, spec in defined.items()
                 if spec.get("type") == "string" and spec.get("minLength", 0) >= 1)


@cache
def _integer_parameters(tool: str) -> tuple[tuple[str, bool], ...]:
    """(name, is an array of integers) for each integer parameter of ``tool``."""
    found: list[tuple[str, bool]] = []
    definitions = tool_definitions()
    for key in ("leader", "sub_agent"):  # "base" lists names only
        for definition in definitions[key]:
            function = definition["function"]
            if function["name"] != tool:
                continue
            for name, spec in function.get("parameters", {}).get("properties", {}).items():
                if spec.get("type") == "integer":
                    found.append((name, False))
                elif spec.get("type") == "array" and spec.get("items", {}).get("type") \
                        == "integer":
                    found.append((name, True))
    return tuple(found)


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON value")


def _strings(value: Any) -> Iterator[str]:
    """Every string in a parsed JSON value, object keys included."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            yield item
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)


def _is_integer(value: Any) -> bool:
    # bool is a subclass of int, and 1.0 compares equal to 1: neither is a JSON integer
    return type(value) is int


def argument_problem(tool: str, arguments: object) -> tuple[dict[str, Any] | None, str | None]:
    """Parse and check ``arguments`` of ``tool``: (arguments, None) or (None, why not)."""
    if not isinstance(arguments, str):
        return None, "arguments must be a JSON text"
    try:
        parsed = json.loads(arguments, parse_constant=_reject_constant,
                            object_pairs_hook=unique_members) if arguments.strip() else {}
    except RepeatedMemberError:
        try:  # the hook runs as objects close: the text may still go wrong after the repeat
            json.loads(arguments, parse_constant=_reject_constant)
        except (ValueError, RecursionError) as exc:
            return None, f"arguments are not valid JSON: {exc}"
        found = repeated_member(arguments)
        name = json.dumps(found[0]) if found is not None else "a member"
        return None, f"arguments name {name} twice in one object"
    except (ValueError, RecursionError) as exc:  # JSONDecodeError, NaN, huge integers
        return None, f"arguments are not valid JSON: {exc}"
    if not isinstance(parsed, dict):
        return None, "arguments must be a JSON object"
    if depth(parsed) > ARGUMENTS_DEPTH_LIMIT:
        return None, f"arguments nest more than {ARGUMENTS_DEPTH_LIMIT} levels deep"
    for text in _strings(parsed):
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:
            return None, "arguments hold a string that is not valid Unicode (a lone surrogate)"
    validator = _validator(tool)
    if validator is not None:
        error = next(iter(sorted(validator.iter_errors(parsed), key=lambda e: e.path)), None)
        if error is not None:
            where = "/".join(str(p) for p in error.absolute_path) or "arguments"
            return None, f"{where}: {error.message}"
    for name, is_array in _integer_parameters(tool):
        if name not in parsed:
            continue
        value = parsed[name]
        if not (all(_is_integer(v) for v in value) if is_array else _is_integer(value)):
            return None, (f"{name}: {json.dumps(value)[:40]} is not an integer (a JSON "
                          "number without fraction or exponent)")
    for name in _text_parameters(tool):
        value = parsed.get(name)
        if isinstance(value, str) and not value.strip():
            return None, f"{name} must not be empty"
    return parsed, None
