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
from typing import NoReturn

import click

from teamwire import schemas
from teamwire.cli.inputs import (
    fail,
    load_json,
    load_json_lines,
    read_input,
    reader_may_leave,
    terminal_safe,
)
from teamwire.near_names import did_you_mean
from teamwire.schemas import SchemaError, UnknownSchemaError


def _fail(message: str) -> NoReturn:
    fail(f"error: {message}")


def _unknown(name: str, exc: UnknownSchemaError) -> NoReturn:
    """Exit 2 naming ``name`` as given (the registry may report only the part before '#')."""
    base, _, pointer = name.partition("#")
    hint = ""
    if pointer and not pointer.startswith("/") and base in exc.known:
        hint = (" (a pointer is '#' followed by /-separated keys, as in "
                "'tools#/$defs/ask_master.arguments')")
    elif base not in exc.known:
        # the known names are short words: match the words of what was given too, so
        # that 'session-bundle' finds 'bundle'
        hint = did_you_mean(base, exc.known, cutoff=0.75, by_words=True)
    _fail(f"unknown schema {name!r}; known: {', '.join(exc.known)}{hint}")


def _known(name: str) -> str:
    """``name`` if the registry knows it (or the subschema it points to); exit 2 otherwise."""
    try:
        schemas.validator(name) if "#" in name else schemas.path(name)
    except UnknownSchemaError as exc:
        _unknown(name, exc)
    return name


def _error_json(error: SchemaError, line: int | None) -> dict[str, object]:
    return {**({"line": line} if line is not None else {}), "path": error.path,
            "message": error.message, "keyword": error.keyword}


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
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
        _unknown(name, exc)
    click.echo(json.dumps(document, ensure_ascii=False, indent=2))


@schema.command("path")
@click.argument("name")
def path_cmd(name: str) -> None:
    """Print the file schema NAME is read from."""
    if "#" in name and name.partition("#")[0] in schemas.names():
        _fail(f"{name!r}: 'schema path' takes a schema name without a '#' pointer")
    try:
        found = schemas.path(name)
    except UnknownSchemaError as exc:
        _unknown(name, exc)
    click.echo(str(found))


@schema.command("validate")
@click.argument("name")
@click.argument("source", metavar="FILE|-")
@click.option(
    "--format",
    "output_format",
    type=click.Choice(["text", "json"]),
    default="text",
    show_default=True,
    help="text: one line per error; json: {valid, errors: [{line?, path, message, keyword}]}.",
)
@click.option("--lines/--document", "per_line", default=None,
              help="Validate each line of FILE as one record (JSON Lines), or FILE as one "
                   "document. Default: by line for a schema that describes one record "
                   "(it says so with x-json-lines, as event-log does), else the whole "
                   "document.")
def validate_cmd(name: str, source: str, output_format: str, per_line: bool | None) -> None:
    """Check the JSON document in FILE (or standard input) against schema NAME; or, for
    JSON Lines, each record.

    Each error is reported with the JSON pointer of the offending value (and, by line, the
    line it is on).
    """
    _known(name)
    label = "<stdin>" if source == "-" else source
    if per_line is None:
        per_line = "#" not in name and schemas.json_lines(name)
    data = read_input(source)
    records: list[tuple[int | None, object]] = (
        list(load_json_lines(label, data)) if per_line else [(None, load_json(label, data))])
    errors: list[tuple[int | None, SchemaError]] = []
    try:
        for line, document in records:
            errors += [(line, error) for error in schemas.validate(name, document)]
    except RecursionError:
        fail(f"{label}: error: the document is nested too deeply to be validated")
    with reader_may_leave():  # a reader that stops early leaves the verdict alone
        if output_format == "json":
            report = {"valid": not errors,
                      **({"records": len(records)} if per_line else {}),
                      "errors": [_error_json(e, line) for line, e in errors]}
            click.echo(json.dumps(report, ensure_ascii=False, indent=2))
        elif errors:
            for line, error in errors:
                where = error.path or "(root)"
                at = f"{label}:{line}" if line is not None else label
                click.echo(terminal_safe(f"{at}: {where}: error[{error.keyword}]: "
                                         f"{error.message}"))
            count = len(errors)
            click.echo(terminal_safe(f"{label}: {count} error{'s' if count != 1 else ''} "
                                     f"against {name}"))
        else:
            what = f" ({len(records)} records)" if per_line else ""
            click.echo(terminal_safe(f"{label}: valid against {name}{what}"))
    sys.exit(1 if errors else 0)
