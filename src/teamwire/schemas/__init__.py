"""One registry of teamwire's JSON Schemas (draft 2020-12).

Every ``spec/schemas/<name>.schema.json`` is loaded once, on first use; ``$ref``\\ s
between files resolve offline (through a ``referencing`` registry, built with the first
validator); validators are built once per schema and reused. A schema is named by its file name without
``.schema.json`` (``"bundle"``); a subschema by ``name#/json/pointer``
(``"tools#/$defs/create_sub_agent.arguments"``). Unknown names raise
:class:`UnknownSchemaError`, a :class:`KeyError` whose message lists the known names.

The protocol tools of each profile ship as ``spec/schemas/tools/<profile>.json``;
:func:`tool_names` reads them and :func:`tool_arguments_validator` checks a tool
call's arguments.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from teamwire._resources import data_path
from teamwire.json_text import json_pointer
from teamwire.schemas.catalog import BASE_URI, SCHEMA_SUFFIX, SchemaCatalog
from teamwire.schemas.compiled import Check
from teamwire.schemas.errors import (
    SchemaError,
    SchemaLoadError,
    UnknownNameError,
    UnknownProfileError,
    UnknownSchemaError,
    UnknownToolError,
    json_message,
)
from teamwire.schemas.tool_sets import DEFAULT_PROFILE, RESULT_SCHEMA, ToolSet, ToolSets

if TYPE_CHECKING:
    from jsonschema import Draft202012Validator

__all__ = [
    "BASE_URI",
    "DEFAULT_PROFILE",
    "SCHEMA_SUFFIX",
    "SchemaCatalog",
    "SchemaError",
    "SchemaLoadError",
    "ToolSet",
    "UnknownNameError",
    "UnknownProfileError",
    "UnknownSchemaError",
    "UnknownToolError",
    "default_catalog",
    "is_valid",
    "json_lines",
    "json_message",
    "json_pointer",
    "known_error_codes",
    "names",
    "path",
    "profiles",
    "schema",
    "title",
    "tool_arguments_check",
    "tool_arguments_schema",
    "tool_arguments_validator",
    "tool_names",
    "tool_result_validator",
    "tool_set",
    "uri",
    "validate",
    "validate_tool_arguments",
    "validator",
]


@cache
def default_catalog() -> SchemaCatalog:
    """The catalog of the shipped schemas (``spec/schemas``), loaded once."""
    return SchemaCatalog(data_path("spec", "schemas"))


@cache
def _tool_sets() -> ToolSets:
    return ToolSets(default_catalog())


def names() -> list[str]:
    """Names of all shipped schemas, sorted."""
    return default_catalog().names()


def schema(name: str) -> dict[str, Any]:
    """A copy of the schema ``name`` (or of the subschema ``name#/pointer``)."""
    return default_catalog().schema(name)


def title(name: str) -> str:
    """The ``title`` of the schema ``name``."""
    return default_catalog().title(name)


def path(name: str) -> Path:
    """The file the schema ``name`` was loaded from."""
    return default_catalog().path(name)


def uri(name: str) -> str:
    """The ``$id`` of the schema ``name``."""
    return default_catalog().uri(name)


def validator(name: str) -> Draft202012Validator:
    """The cached validator of the schema ``name`` (or subschema ``name#/pointer``).

    Its ``schema`` is a copy with the ``$ref``\\ s inlined; use :func:`schema` for the file.
    """
    return default_catalog().validator(name)


def validate(name: str, instance: Any) -> list[SchemaError]:
    """Every reason ``instance`` does not match schema ``name``, sorted by path; ``[]`` if valid."""
    return default_catalog().validate(name, instance)


def json_lines(name: str) -> bool:
    """Whether schema ``name`` describes one record of a JSON Lines file (it says so with
    ``"x-json-lines": true``), so that a file is validated line by line."""
    return default_catalog().json_lines(name)


def is_valid(name: str, instance: Any) -> bool:
    """Whether ``instance`` matches schema ``name``."""
    return default_catalog().is_valid(name, instance)


def profiles() -> list[str]:
    """The tool sets shipped, sorted: one per profile (``astrion``, ``strict``) and the earlier
    versions a profile also accepts (``astrion-10654c4``)."""
    return _tool_sets().profiles()


def tool_names(profile: str = DEFAULT_PROFILE) -> ToolSet:
    """The tool names of ``profile``: leader, sub_agent, base, removed, forbidden."""
    return _tool_sets().names(profile)


def tool_set(profile: str = DEFAULT_PROFILE) -> dict[str, Any]:
    """A copy of ``tools/<profile>.json``, the tool definitions in function-calling form."""
    return _tool_sets().copy_of(profile)


def tool_arguments_validator(tool_name: str, profile: str = DEFAULT_PROFILE) -> Draft202012Validator:
    """The cached validator of a protocol tool's arguments object in ``profile``.

    Raises :class:`UnknownToolError` for names that are not protocol tools of the
    profile (base tools such as ``read_file`` included) and
    :class:`UnknownProfileError` for unknown profiles.
    """
    return default_catalog().validator(_tool_sets().arguments_ref(tool_name, profile))


def tool_arguments_schema(tool_name: str, profile: str = DEFAULT_PROFILE) -> Any:
    """The schema :func:`tool_arguments_validator` checks against (its ``$ref``\\ s inlined),
    read without building a validator. Raises as :func:`tool_arguments_validator` does."""
    return default_catalog().inlined(_tool_sets().arguments_ref(tool_name, profile))


def tool_arguments_check(tool_name: str, profile: str = DEFAULT_PROFILE) -> Check | None:
    """The schema of :func:`tool_arguments_schema` compiled to a predicate, built once for
    every caller (None when it cannot be compiled). Raises as :func:`tool_arguments_validator`
    does."""
    return default_catalog().compiled(_tool_sets().arguments_ref(tool_name, profile))


def validate_tool_arguments(
    tool_name: str, arguments: Any, profile: str = DEFAULT_PROFILE
) -> list[SchemaError]:
    """Every reason ``arguments`` are not valid for ``tool_name`` in ``profile``."""
    ref = _tool_sets().arguments_ref(tool_name, profile)
    return default_catalog().validate(ref, arguments)


def tool_result_validator(tool_name: str) -> Draft202012Validator:
    """The cached validator of what ``tool_name`` returns: its success result or the error result.

    Raises :class:`UnknownToolError` for tools without a JSON result schema (the ask
    tools answer with envelope text).
    """
    known = _tool_sets().result_tools()
    if tool_name not in known:
        raise UnknownToolError(tool_name, known, DEFAULT_PROFILE)
    catalog = default_catalog()
    base = catalog.uri(RESULT_SCHEMA)
    root = {
        "$ref": base,
        "if": {"properties": {"success": {"const": True}}, "required": ["success"]},
        "then": {"$ref": f"{base}#/$defs/{tool_name}.result"},
    }
    return catalog.composed(f"{RESULT_SCHEMA}:{tool_name}", root)


def known_error_codes() -> tuple[str, ...]:
    """The error codes the specification names (readers accept others too)."""
    code = schema(f"{RESULT_SCHEMA}#/$defs/error/properties/error/properties/code")
    return tuple(code.get("examples", ()))
