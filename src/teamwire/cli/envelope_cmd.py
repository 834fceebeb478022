"""``teamwire envelope``: parse envelope text to JSON and render JSON back to text.

Exit codes: 0 success, 1 the input is not a valid envelope (or cannot be
rendered as one; for ``parse``, also a header label, inner tag and id prefix that name
different message types, unless ``--grammar-only``), 2 usage error or unreadable input
(missing file, invalid UTF-8, malformed JSON).
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
from teamwire.envelope import Envelope, MessageType, ParseError, RenderError, parse, render
from teamwire.near_names import did_you_mean

# The keys ``envelope parse`` prints; ``render`` refuses others rather than drop them.
_ENVELOPE_KEYS = frozenset({"sender", "label", "id", "tag", "content", "attributes",
                            "receiver", "type"})


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
def envelope() -> None:
    """Parse and render envelopes (the text form of protocol messages)."""


@envelope.command("parse")
@click.argument("source", default="-", metavar="[FILE|-]")
@click.option("--grammar-only", is_flag=True,
              help="Check the grammar alone: accept a label, tag and id prefix of different "
                   "message types (lint reports those as TW105 and TW106).")
def parse_cmd(source: str, grammar_only: bool) -> None:
    """Print the envelope in FILE (or standard input) as JSON.

    The text must match the grammar and, unless --grammar-only, be one message type
    throughout: the inner tag and the id prefix of the type its header label names (strict
    profile)."""
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
    problems = [] if grammar_only else _type_problems(result, text)
    for line, severity, problem in problems:
        click.echo(terminal_safe(f"{name}:{line}: {severity}: {problem}"), err=True)
    if any(severity == "error" for _, severity, _ in problems):
        sys.exit(1)


# Ids an agent may choose (an ask's question_id, the id of a sub-agent's Message): their
# prefix is a SHOULD (TW-ID-012), so a wrong one is a warning, as lint's TW304 is.
_CHOSEN_IDS = {MessageType.ASK, MessageType.MESSAGE}


def _type_problems(parsed: Envelope, text: str) -> list[tuple[int, str, str]]:
    """(line, severity, what is wrong) for each part of the envelope that names another
    message type than its header label does."""
    kind = parsed.message_type()
    if kind is None:
        return [(1, "error", f"the label {parsed.label!r} names no message type")]
    problems = []
    tag_at = text.find(f"<{parsed.tag}", text.find("\n\n"))
    if parsed.tag != kind.tag:
        problems.append((text.count("\n", 0, tag_at) + 1, "error",
                         f"the inner tag <{parsed.tag}> is not <{kind.tag}>, the tag of "
                         f"{parsed.label} ({kind.name.lower()}) (TW105)"))
    prefix = parsed.id.partition("_")[0]
    if prefix != kind.prefix:
        chosen = kind in _CHOSEN_IDS
        problems.append((2, "warning" if chosen else "error",
                         f"the id {parsed.id!r} does not start with {kind.prefix}_, the "
                         f"prefix of {parsed.label} ({kind.name.lower()}) "
                         f"({'TW304' if chosen else 'TW106'})"))
    return problems


def _envelope_from(name: str, data: Any) -> Envelope:
    """The envelope ``data`` describes; exit 1 naming the field if it describes none."""
    if not isinstance(data, dict):
        fail(f"{name}: error: expected a JSON object")
    unknown = sorted(set(data) - _ENVELOPE_KEYS)
    if unknown:
        fail(f"{name}: error: unknown key {json.dumps(unknown[0], ensure_ascii=False)}"
             f"{did_you_mean(unknown[0], _ENVELOPE_KEYS)} "
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
