"""What the schema registry reports: lookup errors and validation findings."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from teamwire.json_text import json_pointer

if TYPE_CHECKING:
    from jsonschema.exceptions import ValidationError


# Messages quote the offending value; a whole conversation quoted back helps nobody.
_MAX_MESSAGE = 400


class UnknownNameError(KeyError):
    """A name the registry does not know; the message lists the names it does know."""

    def __init__(self, kind: str, name: str, known: Iterable[str]) -> None:
        self.kind = kind
        self.name = name
        self.known = tuple(known)
        listing = ", ".join(self.known) if self.known else "(none)"
        super().__init__(f"unknown {kind} {name!r}; known: {listing}")

    def __str__(self) -> str:
        # KeyError would show the repr of its argument, quotes and all.
        return str(self.args[0])


class UnknownSchemaError(UnknownNameError):
    """No schema of that name (or no such ``#/pointer`` inside it)."""

    def __init__(self, name: str, known: Iterable[str]) -> None:
        super().__init__("schema", name, known)


class UnknownProfileError(UnknownNameError):
    """No tool set is shipped for that profile."""

    def __init__(self, name: str, known: Iterable[str]) -> None:
        super().__init__("profile", name, known)


class UnknownToolError(UnknownNameError):
    """The tool is not a protocol tool of the profile (or has no result schema)."""

    def __init__(self, name: str, known: Iterable[str], profile: str) -> None:
        super().__init__(f"tool of profile {profile!r}", name, known)
        self.profile = profile


class SchemaLoadError(Exception):
    """A shipped schema or tool-set file is unreadable or inconsistent."""


@dataclass(frozen=True)
class SchemaError:
    """One reason why an instance does not match a schema.

    ``path`` is a JSON pointer into the instance (``""`` is the instance itself),
    ``keyword`` the schema keyword that failed (``"false"`` for a forbidden
    property), ``schema_path`` a JSON pointer into the schema.
    """

    path: str
    message: str
    keyword: str
    schema_path: str = ""


def _segments_key(parts: Sequence[str | int]) -> tuple[tuple[int, int, str], ...]:
    # Array indexes sort numerically (/2 before /10), keys by text.
    return tuple((0, p, "") if isinstance(p, int) else (1, 0, p) for p in parts)


def _shorten(message: str) -> str:
    if len(message) <= _MAX_MESSAGE:
        return message
    half = _MAX_MESSAGE // 2
    return f"{message[:half]} … {message[-half:]}"


def _title(error: ValidationError) -> str | None:
    schema = error.schema
    if isinstance(schema, dict) and isinstance(schema.get("title"), str):
        return str(schema["title"])
    return None


def _describe(error: ValidationError) -> tuple[str, str]:
    """Return (keyword, message) for one jsonschema error, phrased for people."""
    keyword = "false" if error.validator is None else str(error.validator)
    last = error.absolute_path[-1] if error.absolute_path else None
    if keyword == "false" or (keyword == "not" and error.validator_value == {}):
        # A field marked absent (``not: {}`` or ``false``) was present.
        if isinstance(last, str):
            return keyword, f"property {last!r} is not allowed here"
        return keyword, "value is not allowed here"
    if keyword in ("anyOf", "oneOf") and error.context:
        # Name what each alternative wanted instead of quoting the whole value back.
        depth = len(error.absolute_path)
        wanted = set()
        for cause in error.context:
            below = json_pointer(list(cause.absolute_path)[depth:])
            message = _describe(cause)[1]
            wanted.add(f"{below}: {message}" if below else message)
        return keyword, _shorten("matches none of the alternatives: " + "; ".join(sorted(wanted)))
    title = _title(error)
    if keyword in ("pattern", "not") and title is not None:
        # The regex itself explains little; the definition's title says what was meant.
        return keyword, _shorten(f"{_json(error.instance)} is not a valid {title}")
    return keyword, _shorten(json_message(error))


def _json(value: Any) -> str:
    try:
        return json.dumps(value, ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError):
        return repr(value)


def json_message(error: ValidationError) -> str:
    """jsonschema's message, with the values it quotes in JSON (``null``, ``true``) rather
    than Python notation, for the keywords whose messages quote values."""
    keyword, instance, wanted = error.validator, error.instance, error.validator_value
    if keyword == "type" and isinstance(wanted, (str, list)):
        kinds = [wanted] if isinstance(wanted, str) else wanted
        return f"{_json(instance)} is not of type {', '.join(map(_json, kinds))}"
    if keyword == "enum":
        return f"{_json(instance)} is not one of {_json(wanted)}"
    if keyword == "const":
        return f"{_json(wanted)} was expected"
    return str(error.message)


def to_schema_errors(errors: Iterable[ValidationError]) -> list[SchemaError]:
    """Convert jsonschema errors into ``SchemaError`` values sorted by instance path."""
    keyed = []
    for error in errors:
        keyword, message = _describe(error)
        parts = list(error.absolute_path)
        found = SchemaError(
            path=json_pointer(parts),
            message=message,
            keyword=keyword,
            schema_path=json_pointer(error.absolute_schema_path),
        )
        keyed.append(((_segments_key(parts), keyword, message), found))
    keyed.sort(key=lambda pair: pair[0])
    return [found for _, found in keyed]
