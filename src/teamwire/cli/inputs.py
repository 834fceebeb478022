"""What the commands share to read their input and report failures: files or standard
input, strict JSON, and messages made safe for a terminal."""

from __future__ import annotations

import codecs
import errno
import io
import json
import os
import re
import sys
import unicodedata
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, NoReturn

import click
import orjson

from teamwire.bounded_read import read_at_most
from teamwire.envelope.errors import position
from teamwire.json_members import RepeatedMemberError, repeated_member, unique_members

# Longer error messages are cut in the middle: a message that quotes a 50 MB line helps nobody.
_MAX_MESSAGE = 300

# Python's JSON decoder recurses once per nesting level; orjson has already capped the depth
# at 1024 by the time it runs, so this limit is always enough.
_RECURSION_LIMIT = 4000

_CONSTANT = re.compile(r"-?(?:NaN|Infinity)")


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


def shorten_message(message: str) -> str:
    """``message`` cut in the middle when it is longer than a terminal line should be."""
    if len(message) <= _MAX_MESSAGE:
        return message
    half = _MAX_MESSAGE // 2
    return f"{message[:half]} … {message[-half:]}"


def fail(message: str, code: int = 2) -> NoReturn:
    """Print ``message`` to standard error (made safe for a terminal) and exit with ``code``."""
    click.echo(terminal_safe(shorten_message(message)), err=True)
    sys.exit(code)


MAX_INPUT_BYTES = 256 * 1024 * 1024
"""The largest document ``envelope`` and ``schema`` read: a device such as /dev/zero, or a
link to one, must end in an error, not in all the memory there is."""

class ClosedStream(io.TextIOBase):
    """Stands in for standard input or output when the process was started with it closed:
    using it raises OSError, which the commands report as an error (exit 2)."""

    def __init__(self, name: str) -> None:
        super().__init__()
        self.name = name

    def _closed(self, *_args: object) -> Any:
        raise OSError(errno.EBADF, f"{self.name} is closed")

    read = write = readline = _closed

    @property
    def buffer(self) -> Any:
        """What reads bytes: this stream again, as closed."""
        return self

    def isatty(self) -> bool:
        return False

    def flush(self) -> None:
        return None


def read_input(source: str, limit: int = MAX_INPUT_BYTES) -> bytes:
    """The bytes of FILE, or of standard input for ``-``; exit 2 if unreadable or larger
    than ``limit``."""
    name = "standard input" if source == "-" else source
    try:
        if source == "-":
            if sys.stdin is None or isinstance(sys.stdin, ClosedStream):
                fail("error: cannot read standard input: it is closed")
            return _bounded(sys.stdin.buffer, name, limit)
        with open(source, "rb") as handle:
            return _bounded(handle, name, limit)
    except OSError as exc:
        fail(f"error: cannot read {name}: {exc.strerror or exc}")


def read_stdin_at_most(limit: int) -> bytes | None:
    """The bytes of standard input, or None when it holds more than ``limit``; exit 2 if it
    cannot be read."""
    try:
        if sys.stdin is None or isinstance(sys.stdin, ClosedStream):
            fail("error: cannot read standard input: it is closed")
        return read_at_most(sys.stdin.buffer, limit)
    except OSError as exc:
        fail(f"error: cannot read standard input: {exc.strerror or exc}")


def _bounded(handle: Any, name: str, limit: int) -> bytes:
    data = read_at_most(handle, limit)
    if data is None:
        fail(f"error: cannot read {name}: it holds more than {limit // (1024 * 1024)} MiB")
    return data


def decode_input(source: str, data: bytes) -> str:
    """``data`` as UTF-8 text; exit 2 with the position of the first bad byte."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        prefix = data[: exc.start].decode("utf-8", errors="replace")
        line, column = position(prefix, len(prefix))
        fail(f"{source}:{line}:{column}: error: invalid UTF-8 at byte {exc.start}")


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
    return _parse(name, text)


def load_json_lines(name: str, data: bytes) -> list[tuple[int, Any]]:
    """Each record of the JSON Lines in ``data`` with its line number, blank lines left out;
    each record read as strictly as ``load_json`` reads a document, and the first problem
    reported with its line and column in the file (exit 2)."""
    text = decode_input(name, data.removeprefix(codecs.BOM_UTF8))
    records = [(number, _parse(name, line, number - 1))
               for number, line in enumerate(text.split("\n"), 1) if line.strip(" \t\r")]
    if not records:
        fail(f"{name}:1:1: error: invalid JSON Lines: the input holds no record")
    return records


def _parse(name: str, text: str, lines_before: int = 0) -> Any:
    """The one JSON document ``text`` holds; ``lines_before``: the lines of the file above
    it, so that a position is the file's."""
    try:
        orjson.loads(text)
    except orjson.JSONDecodeError as exc:
        constant = _CONSTANT.match(text, exc.pos)
        reason = f"{constant.group()} is not a JSON value" if constant else exc.msg
        fail(f"{name}:{exc.lineno + lines_before}:{exc.colno}: error: invalid JSON: {reason}")
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, _RECURSION_LIMIT))
    try:
        return json.loads(text, object_pairs_hook=unique_members)
    except RepeatedMemberError:
        found = repeated_member(text)
        assert found is not None
        key, offset = found
        line, column = position(text, offset)
        fail(f"{name}:{line + lines_before}:{column}: error: invalid JSON: duplicate key "
             f"{json.dumps(key, ensure_ascii=False)} (an object's keys must be unique)")
    except (ValueError, RecursionError) as exc:  # e.g. an integer of more than 4300 digits
        fail(f"{name}: error: invalid JSON: {exc}")
    finally:
        sys.setrecursionlimit(limit)


def silence_stdout() -> None:
    """Send whatever is still written to standard output nowhere: its reader has gone
    (`teamwire … | head`), and the interpreter's last flush must not fail either."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, AttributeError, ValueError):  # no usable file descriptor to replace
        pass


@contextmanager
def reader_may_leave() -> Iterator[None]:
    """Stop printing, quietly, when the reader of standard output goes away; the command
    then goes on to its own exit code."""
    try:
        yield
        sys.stdout.flush()
    except BrokenPipeError:
        silence_stdout()


def tolerant_stdout() -> None:
    """Let standard output write any text a report holds. A terminal may not show CJK, and
    what a router or a transcript sent may hold lone surrogates (JSON allows their escapes,
    UTF-8 cannot encode them): such characters are written as backslash escapes, never a
    crash."""
    reconfigure = getattr(sys.stdout, "reconfigure", None)
    if reconfigure is not None:
        reconfigure(errors="backslashreplace")
