"""The "did you mean" of every command that takes a name: the known name closest to a
mistyped one (difflib's ratio), shared so that every command suggests alike."""

from __future__ import annotations

import difflib
from collections.abc import Iterable


def closest(given: str, known: Iterable[str], *, cutoff: float = 0.6,
            by_words: bool = False) -> str | None:
    """The name of ``known`` closest to ``given``, or None when none is close enough.

    ``by_words`` also matches each ``-``/``_``-separated word of ``given`` on its own, so
    that ``session-bundle`` finds ``bundle``.
    """
    names = sorted(known)
    candidates = [given, *given.replace("_", "-").split("-")] if by_words else [given]
    for word in candidates:
        found = difflib.get_close_matches(word, names, n=1, cutoff=cutoff)
        if found:
            return found[0]
    return None


def did_you_mean(given: str, known: Iterable[str], *, cutoff: float = 0.6,
                 by_words: bool = False) -> str:
    """``" (did you mean 'x'?)"`` for the closest known name, or ``""``."""
    found = closest(given, known, cutoff=cutoff, by_words=by_words)
    return f" (did you mean {found!r}?)" if found is not None else ""
