"""Writing bundles: file names safe on every file system, and writes that are all or nothing."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import tempfile
from typing import Any

# Lower-case letters only: on case-insensitive file systems (Windows, macOS) two names
# differing in case would be one file.
_SAFE = frozenset("abcdefghijklmnopqrstuvwxyz0123456789_-")
# Names Windows reserves whatever their extension.
_RESERVED = frozenset({"con", "prn", "aux", "nul", *(f"com{i}" for i in range(10)),
                       *(f"lpt{i}" for i in range(10))})
_MAX_NAME_BYTES = 200


def escape_part(text: str) -> str:
    """``text`` with every character outside ``[a-z0-9_-]`` written as ``%xx`` per UTF-8
    byte (``.`` and upper case included), so that distinct texts stay distinct names."""
    escaped = "".join(char if char in _SAFE else "".join(f"%{byte:02x}" for byte in _utf8(char))
                      for char in text)
    if escaped in _RESERVED:
        escaped = f"%{ord(escaped[0]):02x}{escaped[1:]}"
    return escaped


def _utf8(char: str) -> bytes:
    # A file name's bytes that are not UTF-8 arrive as lone surrogates (surrogateescape):
    # they are escaped as the bytes they stand for.
    try:
        return char.encode("utf-8", errors="surrogateescape")
    except UnicodeEncodeError:
        return char.encode("utf-8", errors="surrogatepass")


def bundle_name(workspace: str, conversation: str) -> str:
    """The file name of the bundle of ``conversation`` in ``workspace``:
    ``<workspace>.<conversation>.json``, each part escaped (``.`` never occurs in a part,
    so the name is unambiguous); ``<conversation>.json`` for a conversation outside any
    workspace. Names longer than 200 bytes are cut and end in a hash of the whole."""
    stem = escape_part(conversation)
    if workspace:
        stem = f"{escape_part(workspace)}.{stem}"
    if len(stem) + len(".json") > _MAX_NAME_BYTES:
        digest = hashlib.sha256(stem.encode("ascii")).hexdigest()[:16]
        cut = stem[: _MAX_NAME_BYTES - len(".json") - len(digest) - 1]
        if "%" in cut[-2:]:  # never end in half an escape
            cut = cut[: cut.rindex("%")]
        stem = f"{cut}~{digest}"
    return f"{stem}.json"


def bundle_bytes(bundle: dict[str, Any]) -> bytes:
    """The bundle as UTF-8 JSON text, indented, ending in a newline."""
    return (json.dumps(bundle, ensure_ascii=False, allow_nan=False, indent=2) + "\n").encode("utf-8")


def write_atomically(path: str, data: bytes) -> None:
    """Write ``data`` to ``path`` through a temporary file in the same directory and a
    rename: a reader sees the old file or the new one, never half of one, and an
    interrupted import leaves no partial bundle. Raises OSError."""
    directory = os.path.dirname(path) or "."
    fd, temporary = tempfile.mkstemp(dir=directory, prefix=".import-", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
