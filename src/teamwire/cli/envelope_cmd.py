"""``teamwire envelope``: parse envelope text to JSON and render JSON back to text.

Exit codes: 0 success, 1 the input is not a valid envelope (or cannot be
rendered as one), 2 usage error or unreadable input (missing file, invalid
UTF-8, malformed JSON).
"""

from __future__ import annotations

import json
import sys

import click

from teamwire.envelope import Envelope, ParseError, RenderError, parse, render
from teamwire.envelope.errors import position


def read_input(source: str) -> bytes:
    """The bytes of FILE, or of standard input for ``-``; exit 2 if unreadable."""
    try:
        if source == "-":
            return sys.stdin.buffer.read()
        with open(source, "rb") as handle:
            return handle.read()
    except OSError as exc:
        click.echo(f"error: cannot read {source}: {exc.strerror}", err=True)
        sys.exit(2)


def decode_input(source: str, data: bytes) -> str:
    """``data`` as UTF-8 text; exit 2 with the position of the first bad byte."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        prefix = data[: exc.start].decode("utf-8", errors="replace")
        line, column = position(prefix, len(prefix))
        click.echo(f"{source}:{line}:{column}: error: invalid UTF-8 at byte {exc.start}",
                   err=True)
        sys.exit(2)


@click.group()
def envelope() -> None:
    """Parse and render envelopes (the text form of protocol messages)."""


@envelope.command("parse")
@click.argument("source", default="-", metavar="[FILE|-]")
def parse_cmd(source: str) -> None:
    """Print the envelope in FILE (or standard input) as JSON."""
    name = "<stdin>" if source == "-" else source
    text = decode_input(name, read_input(source))
    try:
        result = parse(text)
    except ParseError as exc:
        click.echo(f"{name}:{exc.line}:{exc.column}: error[{exc.code}]: {exc.message}", err=True)
        click.echo(exc.context, err=True)
        sys.exit(1)
    click.echo(json.dumps(result.to_json(), ensure_ascii=False, indent=2))


@envelope.command("render")
@click.argument("source", default="-", metavar="[FILE|-]")
def render_cmd(source: str) -> None:
    """Print the envelope whose JSON (as `envelope parse` prints it) is in FILE."""
    name = "<stdin>" if source == "-" else source
    text = decode_input(name, read_input(source))
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        click.echo(f"{name}:{exc.lineno}:{exc.colno}: error: invalid JSON: {exc.msg}", err=True)
        sys.exit(2)
    if not isinstance(data, dict):
        click.echo(f"{name}: error: expected a JSON object", err=True)
        sys.exit(2)
    try:
        click.echo(render(Envelope.from_json(data)), nl=False)
    except (ValueError, RenderError) as exc:
        click.echo(f"{name}: error: {exc}", err=True)
        sys.exit(1)
    if sys.stdout.isatty():
        click.echo()
