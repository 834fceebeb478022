"""Many inputs: find the files, lint them (in parallel processes if asked), keep their order."""

from __future__ import annotations

import fnmatch
import os
from collections.abc import Callable, Sequence

from teamwire.validator.engine import lint_bytes, lint_file, unreadable
from teamwire.validator.findings import FileReport, LintReport
from teamwire.validator.options import LintOptions

SUFFIXES = (".json", ".jsonl")
"""Files a directory contributes; files named on the command line are linted whatever their name."""

STDIN = "-"

Progress = Callable[[FileReport, int], None]
"""Called once per finished file with its report and its size in bytes."""


def discover(paths: Sequence[str], exclude: Sequence[str] = ()) -> tuple[list[str], list[FileReport]]:
    """The files to lint, in a stable order, and a report for each path that does not exist.

    Directories are searched recursively for ``*.json`` and ``*.jsonl``, skipping hidden
    directories and paths matching an ``exclude`` glob; ``-`` stands for standard input.
    """
    files: list[str] = []
    missing: list[FileReport] = []
    for path in paths:
        if path == STDIN:
            files.append(STDIN)
        elif os.path.isdir(path):
            files.extend(_walk(path, exclude))
        elif os.path.exists(path):
            files.append(path)
        else:
            missing.append(unreadable(path, f"{path}: no such file or directory"))
    return list(dict.fromkeys(files)), missing


def _excluded(path: str, exclude: Sequence[str]) -> bool:
    posix = path.replace(os.sep, "/")
    name = os.path.basename(path)
    return any(fnmatch.fnmatchcase(posix, g) or fnmatch.fnmatchcase(name, g) for g in exclude)


def _walk(root: str, exclude: Sequence[str]) -> list[str]:
    found: list[str] = []
    for directory, dirs, names in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".")
                         and not _excluded(os.path.join(directory, d), exclude))
        for name in sorted(names):
            path = os.path.join(directory, name)
            if name.endswith(SUFFIXES) and not _excluded(path, exclude):
                found.append(path)
    return found


def _size(path: str) -> int:
    try:
        return os.path.getsize(path)
    except OSError:
        return 0


def lint_paths(paths: Sequence[str], options: LintOptions | None = None, *, jobs: int = 1,
               stdin: Callable[[], bytes] | None = None, stdin_name: str = "<stdin>",
               exclude: Sequence[str] = (), progress: Progress | None = None) -> LintReport:
    """Lint every input under ``paths``; ``jobs`` > 1 lints files in that many processes.

    ``stdin`` supplies the bytes of standard input when ``-`` is among the paths.
    """
    options = options or LintOptions()
    files, missing = discover(paths, exclude)
    reports: list[FileReport | None] = [None] * len(files)
    pending: list[int] = []
    for i, path in enumerate(files):
        if path == STDIN:
            data = stdin() if stdin is not None else b""
            jsonl = True if stdin_name.endswith(".jsonl") else None
            reports[i] = lint_bytes(data, stdin_name, options, jsonl=jsonl)
            if progress is not None:
                progress(reports[i] or FileReport(stdin_name), len(data))
        else:
            pending.append(i)
    if jobs > 1 and len(pending) > 1:
        # Imported here: the process pool costs a run with one job a noticeable start.
        from concurrent.futures import ProcessPoolExecutor, as_completed

        with ProcessPoolExecutor(max_workers=min(jobs, len(pending))) as pool:
            futures = {pool.submit(lint_file, files[i], options): i for i in pending}
            for future in as_completed(futures):
                i = futures[future]
                reports[i] = future.result()
                if progress is not None:
                    progress(reports[i] or FileReport(files[i]), _size(files[i]))
    else:
        for i in pending:
            reports[i] = lint_file(files[i], options)
            if progress is not None:
                progress(reports[i] or FileReport(files[i]), _size(files[i]))
    done = [r for r in reports if r is not None]
    return LintReport(files=missing + done)
