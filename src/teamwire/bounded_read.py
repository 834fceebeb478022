"""Reading an input whose end may never come (a pipe, a device) up to a bound."""

from __future__ import annotations

from typing import BinaryIO

CHUNK = 2**20


def read_at_most(handle: BinaryIO, limit: int) -> bytes | None:
    """Every byte ``handle`` gives, or None as soon as there are more than ``limit``."""
    chunks: list[bytes] = []
    size = 0
    while chunk := handle.read(min(CHUNK, limit + 1 - size)):
        chunks.append(chunk)
        size += len(chunk)
        if size > limit:
            return None
    return b"".join(chunks)
