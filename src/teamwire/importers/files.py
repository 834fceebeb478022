"""Reading another system's data directory without trusting it.

A data directory is input like any other: it may hold symbolic links that lead out of it,
FIFOs or devices that would block a reader, files too large to hold in memory, bytes that
are not UTF-8 and JSON that is malformed or repeats a member. Everything here either
returns what was asked for or raises :class:`Unreadable` with a message that names the
file (and the line and column for JSON); nothing blocks, nothing follows a link out of
the directory.
"""

from __future__ import annotations

import codecs
import json
import os
import re
import stat
import sys
from dataclasses import dataclass
from typing import Any

from teamwire.envelope.errors import position
from teamwire.json_members import RepeatedMemberError, repeated_member, unique_members

DEFAULT_MAX_BYTES = 256 * 1024 * 1024
"""The largest file read by default; a larger one is reported and skipped."""

_CHUNK = 1024 * 1024

# Python's decoder recurses once per nesting level; past this it raises RecursionError,
# which is reported like any other malformed JSON.
_RECURSION_LIMIT = 4000

# An escaped UTF-16 surrogate: the decoder accepts a lone one, which cannot be written back
# as UTF-8, so text that holds one is checked more closely.
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")

_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_BINARY = getattr(os, "O_BINARY", 0)


@dataclass(frozen=True)
class Problem:
    """Something in the input that could not be used, or not fully: where, and what."""

    file: str
    message: str
    pointer: str = ""
    line: int | None = None
    column: int | None = None

    def located(self, line: int, column: int) -> Problem:
        """The same problem with a line and column in its file."""
        return Problem(self.file, self.message, self.pointer, line, column)

    def render(self, severity: str = "warning") -> str:
        """``file:line:column: severity: message (at pointer)``, as compilers write it."""
        place = self.file if self.line is None else f"{self.file}:{self.line}:{self.column}"
        at = f" (at {self.pointer})" if self.pointer else ""
        return f"{place}: {severity}: {self.message}{at}"


class Unreadable(Exception):
    """A file that cannot be used at all; ``problem`` says which and why."""

    def __init__(self, problem: Problem) -> None:
        super().__init__(problem.render("error"))
        self.problem = problem


@dataclass(frozen=True)
class JsonFile:
    """A JSON file as read: its name for messages, its text (to locate values) and value."""

    name: str
    text: str
    value: Any


class DataDir:
    """A directory read without leaving it: every path is checked against its real path."""

    def __init__(self, root: str, max_bytes: int = DEFAULT_MAX_BYTES) -> None:
        self.root = root
        self.real = os.path.realpath(root)
        self.max_bytes = max_bytes

    def path(self, *parts: str) -> str:
        """``root/parts...``, as shown in messages."""
        return os.path.join(self.root, *parts)

    def inside(self, path: str) -> bool:
        """Whether ``path``, once every link in it is followed, stays in the directory."""
        real = os.path.realpath(path)
        return real == self.real or real.startswith(self.real.rstrip(os.sep) + os.sep)

    def is_dir(self, path: str) -> bool:
        """Whether ``path`` is a directory inside the data directory."""
        return self.inside(path) and os.path.isdir(path)

    def entries(self, path: str) -> list[str]:
        """The names in directory ``path``, sorted; hidden names left out."""
        try:
            names = os.listdir(path)
        except OSError as exc:
            raise Unreadable(Problem(path, f"cannot list the directory: {_reason(exc)}")) from None
        return sorted(name for name in names if not name.startswith("."))

    def read_bytes(self, path: str) -> bytes:
        """The bytes of regular file ``path``; Unreadable for a link out of the directory,
        anything but a regular file (never opened, so a FIFO cannot block), a file larger
        than ``max_bytes`` or one that cannot be read."""
        if not self.inside(path):
            raise Unreadable(Problem(path, "a symbolic link that leads out of the data "
                                           "directory; not followed"))
        try:
            info = os.stat(path)
        except OSError as exc:
            raise Unreadable(Problem(path, f"cannot read: {_reason(exc)}")) from None
        if not stat.S_ISREG(info.st_mode):
            raise Unreadable(Problem(path, f"not a regular file ({_kind(info.st_mode)}); "
                                           "not read"))
        self._check_size(path, info.st_size)
        try:
            # O_NONBLOCK: should the file be swapped for a FIFO after the check, opening it
            # still returns at once, and the second check below refuses it.
            fd = os.open(path, os.O_RDONLY | _NONBLOCK | _CLOEXEC | _BINARY)
        except OSError as exc:
            raise Unreadable(Problem(path, f"cannot read: {_reason(exc)}")) from None
        try:
            opened = os.fstat(fd)
            if not stat.S_ISREG(opened.st_mode):
                raise Unreadable(Problem(path, f"not a regular file ({_kind(opened.st_mode)}); "
                                               "not read"))
            chunks: list[bytes] = []
            size = 0
            while size <= self.max_bytes:  # bounded even if the file grows while read
                chunk = os.read(fd, min(_CHUNK, self.max_bytes + 1 - size))
                if not chunk:
                    break
                chunks.append(chunk)
                size += len(chunk)
            self._check_size(path, size)
            return b"".join(chunks)
        except OSError as exc:
            raise Unreadable(Problem(path, f"cannot read: {_reason(exc)}")) from None
        finally:
            os.close(fd)

    def read_json(self, path: str) -> JsonFile:
        """The JSON document in file ``path`` (UTF-8, with or without a byte order mark)."""
        return parse_json(path, self.read_bytes(path))

    def _check_size(self, path: str, size: int) -> None:
        if size > self.max_bytes:
            raise Unreadable(Problem(path, f"larger than {self.max_bytes} bytes "
                                           "(--max-file-size); not read"))


def parse_json(name: str, data: bytes) -> JsonFile:
    """The JSON document in ``data``; Unreadable with the line and column of the first
    problem. As lenient as the Python that wrote the files (``NaN`` is read), but a member
    named twice in one object or a lone surrogate is an error: the first is ambiguous,
    the second cannot be written back as UTF-8."""
    data = data.removeprefix(codecs.BOM_UTF8)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        prefix = data[: exc.start].decode("utf-8", errors="replace")
        line, column = position(prefix, len(prefix))
        raise Unreadable(Problem(name, f"invalid UTF-8 at byte {exc.start}", "", line,
                                 column)) from None
    if not text.strip(" \t\r\n"):
        raise Unreadable(Problem(name, "invalid JSON: the file is empty", "", 1, 1))
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, _RECURSION_LIMIT))
    try:
        value = json.loads(text, object_pairs_hook=unique_members)
    except json.JSONDecodeError as exc:
        raise Unreadable(Problem(name, f"invalid JSON: {exc.msg}", "", exc.lineno,
                                 exc.colno)) from None
    except RepeatedMemberError:
        found = repeated_member(text)
        message = "invalid JSON: a key repeated in one object (an object's keys must be unique)"
        if found is None:
            raise Unreadable(Problem(name, message)) from None
        line, column = position(text, found[1])
        key = json.dumps(found[0], ensure_ascii=False)
        raise Unreadable(Problem(name, f"invalid JSON: duplicate key {key} (an object's keys "
                                       "must be unique)", "", line, column)) from None
    except (ValueError, RecursionError) as exc:  # nested too deep, an integer too long
        message = "nested too deep" if isinstance(exc, RecursionError) else str(exc)
        raise Unreadable(Problem(name, f"invalid JSON: {message}")) from None
    finally:
        sys.setrecursionlimit(limit)
    if _SURROGATE_ESCAPE.search(text):
        _refuse_lone_surrogates(name, text)
    return JsonFile(name, text, value)


def _refuse_lone_surrogates(name: str, text: str) -> None:
    for match in re.finditer(r"\\u([dD][89a-fA-F][0-9a-fA-F]{2})", text):
        code = int(match.group(1), 16)
        start = match.start()
        if _escaped(text, start):
            continue
        following = text[match.end():match.end() + 6]
        preceding = text[max(0, start - 6):start]
        high = code < 0xDC00
        paired = (high and re.fullmatch(r"\\u[dD][c-fC-F][0-9a-fA-F]{2}", following)) or (
            not high and re.fullmatch(r"\\u[dD][89abAB][0-9a-fA-F]{2}", preceding)
            and not _escaped(text, start - 6))
        if not paired:
            line, column = position(text, start)
            raise Unreadable(Problem(name, f"invalid JSON: lone surrogate \\u{match.group(1)} "
                                           "(not a character)", "", line, column))


def _escaped(text: str, backslash: int) -> bool:
    """Whether the backslash at ``backslash`` is itself escaped (preceded by an odd run)."""
    run = 0
    while backslash - run - 1 >= 0 and text[backslash - run - 1] == "\\":
        run += 1
    return run % 2 == 1


def _reason(exc: OSError) -> str:
    return exc.strerror or str(exc)


def _kind(mode: int) -> str:
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "not a file"
