"""What git ignores, for directory searches: ``.gitignore`` files and ``.git/info/exclude``.

A search asks about each entry it meets on its way down, and never enters a directory git
ignores, so a pattern is asked only whether it names the entry itself: ``out/`` names a
directory ``out``, not the files in it (those are never reached), and ``keep/**`` names what
is inside ``keep``, not ``keep``. That is also why a directory named on the command line is
searched even when git ignores it: the patterns that name it are never asked about it.
"""

from __future__ import annotations

import os
from pathlib import PurePosixPath

from pathspec import GitIgnoreSpec
from pathspec.pattern import RegexPattern


def work_tree(directory: str) -> str | None:
    """The top of the git work tree holding ``directory`` (where ``.git`` is), or None."""
    current = os.path.abspath(directory)
    while True:
        if os.path.exists(os.path.join(current, ".git")):
            return current
        parent = os.path.dirname(current)
        if parent == current:
            return None
        current = parent


def _patterns(path: str) -> list[RegexPattern]:
    """The patterns of one ignore file, last first (the last one that names a path decides)."""
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            lines = handle.read().splitlines()
    except OSError:
        return []
    spec = GitIgnoreSpec.from_lines(lines)
    return [p for p in reversed(list(spec.patterns))
            if isinstance(p, RegexPattern) and p.include is not None and p.regex is not None]


def _names(pattern: RegexPattern, relative: str, is_dir: bool) -> bool:
    """Whether ``pattern`` names the entry at ``relative`` itself, not only something above it.

    pathspec's expressions match a prefix: a directory pattern (``out/``, ``*.json``) ends in
    a group ``ps_d`` that takes the slash after a directory, so it names the entry when the
    match takes the whole of it (with that slash for a directory); a pattern for what is
    inside a directory (``keep/**``) ends in a bare slash, so it names an entry strictly below.
    """
    text = relative + "/" if is_dir else relative
    regex = pattern.regex
    assert regex is not None
    match = regex.match(text)
    if match is None:
        return False
    if "ps_d" in regex.groupindex:
        return match.end() == len(text)
    return regex.pattern == "." or match.end() < len(text)


class GitIgnores:
    """The ignore rules of one git work tree, read as a search needs them.

    Each ``.gitignore`` speaks of the paths below its own directory, a deeper one before a
    shallower one, then ``.git/info/exclude``; within a file the last pattern that names a
    path decides (a ``!`` pattern takes it back).
    """

    def __init__(self, top: str) -> None:
        self.top = os.path.abspath(top)
        self._files: dict[str, list[RegexPattern]] = {}
        self._exclude = _patterns(os.path.join(self.top, ".git", "info", "exclude"))

    def _rules(self, directory: str) -> list[RegexPattern]:
        if directory not in self._files:
            self._files[directory] = _patterns(os.path.join(directory, ".gitignore"))
        return self._files[directory]

    def ignored(self, path: str, is_dir: bool) -> bool:
        """Whether a pattern names ``path`` (a directory if ``is_dir``) as ignored."""
        relative = os.path.relpath(os.path.abspath(path), self.top)
        if relative == "." or relative.startswith(".."):
            return False
        parts = PurePosixPath(relative.replace(os.sep, "/")).parts
        for depth in range(len(parts) - 1, -1, -1):
            below = "/".join(parts[depth:])
            for pattern in self._rules(os.path.join(self.top, *parts[:depth])):
                if _names(pattern, below, is_dir):
                    return pattern.include is True
        for pattern in self._exclude:
            if _names(pattern, relative.replace(os.sep, "/"), is_dir):
                return pattern.include is True
        return False
