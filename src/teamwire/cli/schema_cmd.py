"""``teamwire schema``: list, show, locate the shipped JSON Schemas and validate against them.

A schema is named by its file name without ``.schema.json`` (``bundle``); ``show`` and
``validate`` also take a subschema as ``NAME#/json/pointer``
(``tools#/$defs/create_sub_agent.arguments``).

Exit codes: 0 success (valid), 1 the document does not match the schema, 2 usage
error: unknown schema, unreadable file, invalid UTF-8 or malformed JSON.
"""

from __future__ import annotations

import json
import sys
from typing import Any, NoReturn

import click

from teamwire import schemas
from teamwire.schemas import SchemaError, UnknownSchemaError


def _fail(message: str) -> NoReturn:
    click.echo(f"error: {message}", err=True)
    sys.exit(2)


def _known(name: str) -> str:
    """``name`` if the registry knows it (or the subschema it points to); exit 2 otherwise."""
    try:
        schemas.validator(name) if "#" in name else schemas.path(name)
    except UnknownSchemaError as exc:
        _fail(str(exc))
    return name


def _line_column(text: str, offset: int) -> tuple[int, int]:
    before = text[:offset]
    line = before.count("\n") + 1
    return line, offset - (before.rfind("\n") + 1) + 1


def _reject_constant(token: str) -> Any:
    raise ValueError(f"{token} is not valid JSON")


def _load(source: str, label: str) -> Any:
    """The JSON document in ``source`` (``-`` for standard input); exit 2 if unusable."""
    try:
        if source == "-":
            data = sys.stdin.buffer.read()
        else:
            with open(source, "rb") as handle:
                data = handle.read()
    except OSError as exc:
        _fail(f"cannot read {label}: {exc.strerror or exc}")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        prefix = data[: exc.start].decode("utf-8", errors="replace")
        line, column = _line_column(prefix, len(prefix))
        click.echo(f"{label}:{line}:{column}: error: invalid UTF-8 at byte {exc.start}", err=True)
        sys.exit(2)
    try:
        return json.loads(text, parse_constant=_reject_constant)
    except json.JSONDecodeError as exc:
        click.echo(f"{label}:{exc.lineno}:{exc.colno}: error: invalid JSON: {exc.msg}", err=True)
        sys.exit(2)
    except (ValueError, RecursionError) as exc:
        click.echo(f"{label}: error: invalid JSON: {exc}", err=True)
        sys.exit(2)


def _error_json(error: SchemaError) -> dict[str, str]:
    return {"path": error.path, "message": error.message, "keyword": error.keyword}


@click.group()
def schema() -> None:
    """List, show and locate the protocol's JSON Schemas; validate documents against them."""


@schema.command("list")
def list_cmd() -> None:
    """Print every schema's name and title, one per line."""
    names = schemas.names()
    width = max((len(name) for name in names), default=0)
    for name in names:
        click.echo(f"{name:<{width}}  {schemas.title(name)}".rstrip())


@schema.command("show")
@click.argument("name")
def show_cmd(name: str) -> None:
    """Print schema NAME (or NAME#/pointer) as indented JSON."""
    try:
        document = schemas.schema(name)
    except UnknownSchemaError as exc:
        _fail(str(exc))
    click.echo(json.dumps(document, ensure_ascii=False, indent=2))


@schema.command("path")
@click.argument("name")
def path_cmd(name: str) -> None:
    """Print the file schema NAME is read from."""
    try:
        click.echo(str(schemas.path(name)))
    except UnknownSchemaError as exc:
        _fail(str(exc))


@schema.command("validate")
@click.argument("name")
@click.argument("source", metavar="FILE|-")
@click.option(
    "--format",
    "output_format",
    type=click.Choice(["text", "json"]),
    default="text",
    show_default=True,
    help="text: one line per error; json: {valid, errors: [{path, message, keyword}]}.",
)
def validate_cmd(name: str, source: str, output_format: str) -> None:
    """Check the JSON document in FILE (or standard input) against schema NAME.

    Each error is reported with the JSON pointer of the offending value.
    """
    _known(name)
    label = "<stdin>" if source == "-" else source
    errors = schemas.validate(name, _load(source, label))
    if output_format == "json":
        report = {"valid": not errors, "errors": [_error_json(e) for e in errors]}
        click.echo(json.dumps(report, ensure_ascii=False, indent=2))
    elif errors:
        for error in errors:
            where = error.path or "(root)"
            click.echo(f"{label}: {where}: error[{error.keyword}]: {error.message}")
        count = len(errors)
        click.echo(f"{label}: {count} error{'s' if count != 1 else ''} against {name}")
    else:
        click.echo(f"{label}: valid against {name}")
    sys.exit(1 if errors else 0)
