"""What git ignores, for directory searches: ``.gitignore`` files and ``.git/info/exclude``."""

from __future__ import annotations

import os
from pathlib import PurePosixPath

from pathspec import GitIgnoreSpec


def _work_tree(directory: str) -> str | None:
    """The top of the git work tree holding ``directory`` (where ``.git`` is), or None."""
    current = os.path.abspath(directory)
    while True:
        if os.path.exists(os.path.join(current, ".git")):
            return current
        parent = os.path.dirname(current)
        if parent == current:
            return None
        current = parent


def _read(path: str) -> GitIgnoreSpec | None:
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            lines = handle.read().splitlines()
    except OSError:
        return None
    spec = GitIgnoreSpec.from_lines(lines)
    return spec if len(spec) else None


class GitIgnores:
    """The ignore rules met on the way down a directory search inside a git work tree.

    Each ``.gitignore`` speaks of paths below its own directory; a deeper file decides
    before a shallower one, and within a file the last matching pattern decides (a ``!``
    pattern takes a path back). Outside a work tree nothing is ignored.
    """

    def __init__(self, start: str) -> None:
        self.top = _work_tree(start)
        self._specs: dict[str, GitIgnoreSpec | None] = {}
        self._info = None if self.top is None else _read(
            os.path.join(self.top, ".git", "info", "exclude"))

    def _spec(self, directory: str) -> GitIgnoreSpec | None:
        if directory not in self._specs:
            self._specs[directory] = _read(os.path.join(directory, ".gitignore"))
        return self._specs[directory]

    def ignored(self, path: str, is_dir: bool) -> bool:
        """Whether git ignores ``path`` (a directory if ``is_dir``)."""
        if self.top is None:
            return False
        absolute = os.path.abspath(path)
        relative = os.path.relpath(absolute, self.top)
        if relative.startswith(".."):
            return False
        parts = PurePosixPath(relative.replace(os.sep, "/")).parts
        suffix = "/" if is_dir else ""
        # From the file's own directory up to the top, then .git/info/exclude.
        for depth in range(len(parts) - 1, -1, -1):
            spec = self._spec(os.path.join(self.top, *parts[:depth]))
            if spec is not None:
                verdict = spec.check_file("/".join(parts[depth:]) + suffix).include
                if verdict is not None:
                    return verdict
        if self._info is not None:
            verdict = self._info.check_file("/".join(parts) + suffix).include
            if verdict is not None:
                return verdict
        return False
