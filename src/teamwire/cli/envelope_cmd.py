"""``teamwire envelope``: parse envelope text to JSON and render JSON back to text.

Exit codes: 0 success, 1 the input is not a valid envelope (or cannot be
rendered as one), 2 usage error or unreadable input (missing file, invalid
UTF-8, malformed JSON).

The input helpers here (``read_input``, ``load_json``, ``terminal_safe``) are
shared with ``teamwire schema``.
"""

from __future__ import annotations

import codecs
import json
import re
import sys
import unicodedata
from typing import Any, NoReturn

import click
import orjson

from teamwire.envelope import Envelope, ParseError, RenderError, parse, render
from teamwire.envelope.errors import position

# Longer error messages are cut in the middle: a message that quotes a 50 MB line helps nobody.
_MAX_MESSAGE = 300

# The keys ``envelope parse`` prints; ``render`` refuses others rather than drop them.
_ENVELOPE_KEYS = frozenset({"sender", "label", "id", "tag", "content", "attributes",
                            "receiver", "type"})

# Python's JSON decoder recurses once per nesting level; orjson has already capped the depth
# at 1024 by the time it runs, so this limit is always enough.
_RECURSION_LIMIT = 4000

_CONSTANT = re.compile(r"-?(?:NaN|Infinity)")
_STRING_OR_PUNCTUATION = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[{}\[\]:,]')


def terminal_safe(text: str) -> str:
    """``text`` with control, format (bidi) and surrogate characters replaced by visible
    one-column stand-ins, so that an error line cannot drive the terminal."""
    if text.isprintable():
        return text
    out = []
    for char in text:
        if char.isprintable() or char == " ":
            out.append(char)
        elif char < " ":
            out.append(chr(0x2400 + ord(char)))  # the control pictures ␀ … ␟
        elif char == "\x7f":
            out.append("\u2421")
        elif unicodedata.category(char) == "Zs":
            out.append(" ")
        else:
            out.append("\ufffd")
    return "".join(out)


def _shorten(message: str) -> str:
    if len(message) <= _MAX_MESSAGE:
        return message
    half = _MAX_MESSAGE // 2
    return f"{message[:half]} … {message[-half:]}"


def fail(message: str, code: int = 2) -> NoReturn:
    """Print ``message`` to standard error (made safe for a terminal) and exit with ``code``."""
    click.echo(terminal_safe(_shorten(message)), err=True)
    sys.exit(code)


def read_input(source: str) -> bytes:
    """The bytes of FILE, or of standard input for ``-``; exit 2 if unreadable."""
    try:
        if source == "-":
            if sys.stdin is None:  # started with standard input closed
                fail("error: cannot read standard input: it is closed")
            return sys.stdin.buffer.read()
        with open(source, "rb") as handle:
            return handle.read()
    except OSError as exc:
        fail(f"error: cannot read {'standard input' if source == '-' else source}: "
             f"{exc.strerror or exc}")


def decode_input(source: str, data: bytes) -> str:
    """``data`` as UTF-8 text; exit 2 with the position of the first bad byte."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        prefix = data[: exc.start].decode("utf-8", errors="replace")
        line, column = position(prefix, len(prefix))
        fail(f"{source}:{line}:{column}: error: invalid UTF-8 at byte {exc.start}")


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result = dict(pairs)
    if len(result) != len(pairs):
        raise _DuplicateKeyError
    return result


class _DuplicateKeyError(Exception):
    pass


def _duplicate_key(text: str) -> tuple[str, int]:
    """The first key that repeats within one object, and its offset in ``text``.

    Only called once a duplicate is known to exist; walks the strings and punctuation
    with an explicit stack, so any depth is fine.
    """
    stack: list[set[str] | None] = []
    expect_key = False
    for match in _STRING_OR_PUNCTUATION.finditer(text):
        token = match.group()
        if token == "{":
            stack.append(set())
            expect_key = True
        elif token == "[":
            stack.append(None)
            expect_key = False
        elif token in "}]":
            stack.pop()
            expect_key = False
        elif token == ",":
            expect_key = bool(stack) and stack[-1] is not None
        elif token == ":":
            expect_key = False
        elif expect_key:
            keys = stack[-1]
            assert keys is not None
            key = json.loads(token)
            if key in keys:
                return key, match.start()
            keys.add(key)
            expect_key = False
    raise AssertionError("no duplicate key found")  # pragma: no cover


def load_json(name: str, data: bytes) -> Any:
    """The JSON document in ``data`` (UTF-8, with or without a byte order mark).

    Exits 2 with the line and column of the first problem. Stricter than
    ``json.loads``: ``NaN`` and ``Infinity``, lone surrogates (``"\\ud800"``),
    numbers beyond a double's range, duplicate keys in one object and nesting
    deeper than 1024 levels are errors, so that nothing in the input is silently
    dropped or changed. Integers keep every digit.
    """
    text = decode_input(name, data.removeprefix(codecs.BOM_UTF8))
    if not text.strip(" \t\r\n"):
        fail(f"{name}:1:1: error: invalid JSON: the input is empty")
    try:
        orjson.loads(text)
    except orjson.JSONDecodeError as exc:
        constant = _CONSTANT.match(text, exc.pos)
        reason = f"{constant.group()} is not a JSON value" if constant else exc.msg
        fail(f"{name}:{exc.lineno}:{exc.colno}: error: invalid JSON: {reason}")
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, _RECURSION_LIMIT))
    try:
        return json.loads(text, object_pairs_hook=_unique_keys)
    except _DuplicateKeyError:
        key, offset = _duplicate_key(text)
        line, column = position(text, offset)
        fail(f"{name}:{line}:{column}: error: invalid JSON: duplicate key "
             f"{json.dumps(key, ensure_ascii=False)} (an object's keys must be unique)")
    except (ValueError, RecursionError) as exc:  # e.g. an integer of more than 4300 digits
        fail(f"{name}: error: invalid JSON: {exc}")
    finally:
        sys.setrecursionlimit(limit)


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
        message = f"{name}:{exc.line}:{exc.column}: error[{exc.code}]: {_shorten(exc.message)}"
        if text.startswith("\ufeff") and exc.offset == 0:
            message += " (the text starts with a byte order mark; envelopes have none)"
        snippet, _, caret = exc.context.partition("\n")
        click.echo(terminal_safe(message), err=True)
        click.echo(f"{terminal_safe(snippet)}\n{caret}", err=True)
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
