"""Many inputs: find the files, lint them (in parallel processes if asked), keep their order."""

from __future__ import annotations

import errno
import fnmatch
import os
import stat
from collections.abc import Callable, Collection, Sequence
from typing import TYPE_CHECKING, TypeAlias, TypeVar

from teamwire.validator import engine
from teamwire.validator.engine import Linter, unreadable
from teamwire.validator.findings import FileReport, LintReport
from teamwire.validator.options import LintOptions, match_forms

if TYPE_CHECKING:
    from teamwire.validator.gitignore import GitIgnores

SUFFIXES = (".json", ".jsonl")
"""Files a directory contributes; files named on the command line are linted whatever their name."""

STDIN = "-"

T = TypeVar("T")

Progress = Callable[[FileReport, int], None]
"""Called once per finished file with its report and its size in bytes."""


class Found(str):
    """A path found by searching a directory, not named on the command line: a file of
    plainly another kind (a package.json) found so is skipped rather than reported."""

    __slots__ = ()


Input: TypeAlias = "str | FileReport"
"""A file to lint (a path, or ``-`` for standard input), or the report of a path that does
not exist, which keeps its place among the others."""


def discover(paths: Sequence[str], exclude: Sequence[str] = (), root: str | None = None,
             skip: Collection[str] = ()) -> tuple[list[str], list[FileReport]]:
    """The files to lint, in a stable order, and a report for each path that does not exist
    (``find_inputs``, split in two)."""
    inputs = find_inputs(paths, exclude, root, skip)
    return ([i for i in inputs if isinstance(i, str)],
            [i for i in inputs if isinstance(i, FileReport)])


def find_inputs(paths: Sequence[str], exclude: Sequence[str] = (), root: str | None = None,
                skip: Collection[str] = (), gitignore: bool = True) -> list[Input]:
    """Every file to lint and a report for every missing path, in the order of ``paths``.

    Directories are searched recursively for ``*.json`` and ``*.jsonl``, skipping hidden
    directories and paths matching an ``exclude`` glob (matched against the path as found,
    the path relative to ``root`` and the base name), what git ignores there (``.gitignore``
    files and ``.git/info/exclude``, unless ``gitignore`` is false) and the files whose real
    paths are in ``skip`` (the report being written, say); ``-`` stands for standard input.
    A file named two ways (``a/b.json``, ``./a/b.json``, a link to it) is one input, in the
    place it first takes; named on the command line as well as found in a directory, it
    counts as named (``Found`` marks the others).
    """
    inputs: list[Input] = []
    seen: dict[str, int] = {}  # real path -> place in inputs
    for path in paths:
        found: list[Input]
        if path == STDIN:
            found = [STDIN]
        elif os.path.isdir(path):
            found = _walk(path, exclude, root, skip, gitignore)
        elif os.path.exists(path):
            found = [path]
        else:
            inputs.append(unreadable(path, f"cannot read {path}: {os.strerror(errno.ENOENT)}"))
            continue
        for file in found:
            if isinstance(file, FileReport):  # a directory that could not be listed
                inputs.append(file)
                continue
            key = file if file == STDIN else os.path.realpath(file)
            place = seen.get(key)
            if place is None:
                seen[key] = len(inputs)
                inputs.append(file)
            elif not isinstance(file, Found) and isinstance(inputs[place], Found):
                inputs[place] = str(inputs[place])
    return inputs


def _excluded(path: str, exclude: Sequence[str], root: str | None) -> bool:
    forms = match_forms(path, root)
    return any(fnmatch.fnmatchcase(form, glob) for form in forms for glob in exclude)


def _walk(root: str, exclude: Sequence[str], config_root: str | None,
          skip: Collection[str] = (), gitignore: bool = False) -> list[Input]:
    """The transcripts a directory search finds: regular files, and links that stay inside
    the searched directory; a directory that cannot be listed is an unreadable input."""
    found: list[Input] = []
    top = os.path.realpath(root)

    def cannot_list(error: OSError) -> None:
        where = error.filename or root
        found.append(unreadable(str(where), f"cannot read {where}: {error.strerror or error}"))

    # The work tree each directory belongs to: a directory holding .git starts its own, whose
    # rules alone apply below it.
    trees: dict[str, GitIgnores | None] = {root: _tree(root) if gitignore else None}
    for directory, dirs, names in os.walk(root, onerror=cannot_list):
        tree = trees.pop(directory, None)
        kept = []
        for name in sorted(dirs):
            path = os.path.join(directory, name)
            if name.startswith(".") or _excluded(path, exclude, config_root) \
                    or (tree is not None and tree.ignored(path, True)):
                continue
            kept.append(name)
            if gitignore:
                trees[path] = _tree(path) if os.path.exists(os.path.join(path, ".git")) \
                    else tree
        dirs[:] = kept
        for name in sorted(names):
            path = os.path.join(directory, name)
            if name.endswith(SUFFIXES) and not _excluded(path, exclude, config_root) \
                    and not (skip and os.path.realpath(path) in skip) \
                    and not (tree is not None and tree.ignored(path, False)) \
                    and _searchable(path, top):
                found.append(Found(path))
    return found


def _searchable(path: str, top: str) -> bool:
    """Whether a file a search found may be read: a regular file (not a FIFO, which would
    block, nor a device), reached by no link that leaves the searched directory (a pull
    request could otherwise show a runner's files in a CI log)."""
    real = os.path.realpath(path)
    if real != top and not real.startswith(top.rstrip(os.sep) + os.sep):
        return False
    try:
        return stat.S_ISREG(os.stat(real).st_mode)
    except OSError:
        return True  # gone or unreadable: reading it says why


def _tree(directory: str) -> GitIgnores | None:
    """The ignore rules of the work tree holding ``directory``, if it is in one."""
    # Imported here: a run over named files needs no pattern matcher at start-up.
    from teamwire.validator.gitignore import GitIgnores, work_tree

    top = work_tree(directory)
    return None if top is None else GitIgnores(top)


def _size(path: str) -> int:
    try:
        return os.path.getsize(path)
    except OSError:
        return 0


def lint_paths(paths: Sequence[str], options: LintOptions | None = None, *, jobs: int = 1,
               stdin: Callable[[], bytes | None] | None = None, stdin_name: str = "<stdin>",
               exclude: Sequence[str] = (), progress: Progress | None = None,
               skip: Collection[str] = (), gitignore: bool = True) -> LintReport:
    """Lint every input under ``paths``; ``jobs`` > 1 lints files in that many processes.

    ``stdin`` supplies the bytes of standard input when ``-`` is among the paths, or None when
    it holds more than ``engine.MAX_UNSIZED_BYTES`` (an unreadable input, like a pipe named on
    the command line); ``exclude``, ``skip`` and ``gitignore`` are as for ``find_inputs``.
    """
    options = options or LintOptions()
    return lint_inputs(find_inputs(paths, exclude, options.root, skip, gitignore), options,
                       jobs=jobs,
                       stdin=stdin, stdin_name=stdin_name, progress=progress)


def lint_inputs(inputs: Sequence[Input], options: LintOptions | None = None, *, jobs: int = 1,
                stdin: Callable[[], bytes | None] | None = None, stdin_name: str = "<stdin>",
                progress: Progress | None = None) -> LintReport:
    """Lint inputs ``find_inputs`` found, in their order (as ``lint_paths`` does)."""
    options = options or LintOptions()
    linter = Linter(options)
    reports: list[FileReport | None] = [i if isinstance(i, FileReport) else None for i in inputs]
    pending: list[tuple[int, str]] = []
    for i, path in enumerate(inputs):
        if path == STDIN:
            data = stdin() if stdin is not None else b""
            if data is None:
                reports[i] = unreadable(stdin_name, f"cannot read {stdin_name}: it is not a regular "
                                        f"file and holds more than "
                                        f"{engine.MAX_UNSIZED_BYTES // 2**20} MiB")
                continue
            jsonl = True if stdin_name.endswith(".jsonl") else None
            report = reports[i] = linter.lint_bytes(data, stdin_name, jsonl=jsonl)
            if report.findings:
                report.source = data  # standard input cannot be read again for file lines
            if progress is not None:
                progress(reports[i] or FileReport(stdin_name), len(data))
        elif isinstance(path, str):
            pending.append((i, path))
    if jobs > 1 and len(pending) > 1:
        # Imported here: the process pool costs a run with one job a noticeable start.
        from concurrent.futures import ProcessPoolExecutor, as_completed

        workers = min(jobs, len(pending))
        with ProcessPoolExecutor(max_workers=workers, initializer=_set_worker_options,
                                 initargs=(options,)) as pool:
            sizes = [_size(path) for _, path in pending]
            futures = {pool.submit(_lint_batch, [path for _, path in batch]): batch
                       for batch in batches(pending, sizes, workers)}
            for future in as_completed(futures):
                for (i, path), report in zip(futures[future], future.result(), strict=True):
                    reports[i] = report
                    if progress is not None:
                        progress(report, _size(path))
    else:
        for i, path in pending:
            reports[i] = linter.lint_file(path, isinstance(path, Found))
            if progress is not None:
                progress(reports[i] or FileReport(path), _size(path))
    done = [r for r in reports if r is not None]
    return LintReport(files=[r for r in done if r.skipped is None],
                      skipped=[r for r in done if r.skipped is not None])


_BATCH_BYTES = 1 << 20
_BATCHES_PER_WORKER = 8
_worker_linter: Linter | None = None


def batches(pending: Sequence[T], sizes: Sequence[int], workers: int) -> list[list[T]]:
    """``pending`` (files of ``sizes`` bytes) cut into runs of consecutive files for the
    workers: about eight batches per worker, so that they finish together, and none over
    1 MiB unless one file is (a process hop costs about as much as linting a few kilobytes,
    so small files travel together)."""
    target = min(_BATCH_BYTES, max(1, sum(sizes) // (workers * _BATCHES_PER_WORKER)))
    found: list[list[T]] = []
    batch: list[T] = []
    held = 0
    for entry, size in zip(pending, sizes, strict=True):
        if batch and held + size > target:
            found.append(batch)
            batch, held = [], 0
        batch.append(entry)
        held += size
    if batch:
        found.append(batch)
    return found


def _set_worker_options(options: LintOptions) -> None:
    # Sent once per worker process rather than with every batch; the worker's one linter
    # then lints all its batches.
    global _worker_linter
    _worker_linter = Linter(options)


def _lint_batch(paths: list[str]) -> list[FileReport]:
    linter = _worker_linter if _worker_linter is not None else Linter()
    return [linter.lint_file(path, isinstance(path, Found)) for path in paths]
