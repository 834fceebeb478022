"""Validation of tool-call arguments against the tools' JSON Schemas."""

from __future__ import annotations

import json
from functools import cache
from typing import Any

from jsonschema import Draft202012Validator

from teamwire import schemas

TEXT_PARAMETERS = ("task", "message", "question", "content", "answer")
"""Parameters that must hold a character other than white space."""


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


def argument_problem(tool: str, arguments: str) -> tuple[dict[str, Any] | None, str | None]:
    """Parse and check ``arguments`` of ``tool``: (arguments, None) or (None, why not)."""
    try:
        parsed = json.loads(arguments) if arguments.strip() else {}
    except (json.JSONDecodeError, RecursionError) as exc:
        return None, f"arguments are not valid JSON: {exc}"
    if not isinstance(parsed, dict):
        return None, "arguments must be a JSON object"
    validator = _validator(tool)
    if validator is not None:
        error = next(iter(sorted(validator.iter_errors(parsed), key=lambda e: e.path)), None)
        if error is not None:
            where = "/".join(str(p) for p in error.absolute_path) or "arguments"
            return None, f"{where}: {error.message}"
    for name in TEXT_PARAMETERS:
        value = parsed.get(name)
        if isinstance(value, str) and not value.strip():
            return None, f"{name} must not be empty"
    return parsed, None
