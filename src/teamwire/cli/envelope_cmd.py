"""``teamwire envelope``: parse envelope text to JSON and render JSON back to text.

Exit codes: 0 success, 1 the input is not a valid envelope (or cannot be
rendered as one), 2 usage error or unreadable input (missing file, invalid
UTF-8, malformed JSON).
"""

from __future__ import annotations

import json
import sys
from typing import Any

import click

from teamwire.cli.inputs import (
    decode_input,
    fail,
    load_json,
    read_input,
    shorten_message,
    terminal_safe,
)
from teamwire.envelope import Envelope, ParseError, RenderError, parse, render

# The keys ``envelope parse`` prints; ``render`` refuses others rather than drop them.
_ENVELOPE_KEYS = frozenset({"sender", "label", "id", "tag", "content", "attributes",
                            "receiver", "type"})


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
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
        message = f"{name}:{exc.line}:{exc.column}: error[{exc.code}]: {shorten_message(exc.message)}"
        if text.startswith("\ufeff") and exc.offset == 0:
            message += " (the text starts with a byte order mark; envelopes have none)"
        # The caret is laid out again for the line as a terminal shows it, as lint does
        # (imported here: only a failed parse needs the linter's reporter).
        from teamwire.validator.reporters.text import caret_under

        context_line, _, caret = exc.context.partition("\n")
        snippet, caret = caret_under(context_line, caret)
        click.echo(terminal_safe(message), err=True)
        click.echo(f"{snippet}\n{caret}", err=True)
        sys.exit(1)
    click.echo(json.dumps(result.to_json(), ensure_ascii=False, indent=2))


def _envelope_from(name: str, data: Any) -> Envelope:
    """The envelope ``data`` describes; exit 1 naming the field if it describes none."""
    if not isinstance(data, dict):
        fail(f"{name}: error: expected a JSON object")
    unknown = sorted(set(data) - _ENVELOPE_KEYS)
    if unknown:
        fail(f"{name}: error: unknown key {json.dumps(unknown[0], ensure_ascii=False)} "
             f"(an envelope has {', '.join(sorted(_ENVELOPE_KEYS))})", 1)
    if data.get("attributes") is not None and not isinstance(data["attributes"], dict):
        fail(f"{name}: error: 'attributes' must be an object", 1)
    try:
        return Envelope.from_json(data)
    except ValueError as exc:
        fail(f"{name}: error: {exc}", 1)


@envelope.command("render")
@click.argument("source", default="-", metavar="[FILE|-]")
def render_cmd(source: str) -> None:
    """Print the envelope whose JSON (as 'envelope parse' prints it) is in FILE."""
    name = "<stdin>" if source == "-" else source
    built = _envelope_from(name, load_json(name, read_input(source)))
    try:
        text = render(built)
    except RenderError as exc:
        fail(f"{name}: error: {exc}", 1)
    click.echo(text, nl=False)
    if sys.stdout is not None and sys.stdout.isatty():
        click.echo()
