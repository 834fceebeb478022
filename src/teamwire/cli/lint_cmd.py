"""``teamwire lint``: check transcripts against the protocol, in the formats CI systems read.

Exit codes: 0 no error-severity finding, 1 errors found, 2 usage error or an
unreadable input (or a bad configuration or baseline). ``--exit-zero`` turns 1 into 0.
Findings a ``--baseline`` accepts are neither reported nor counted; ``--write-baseline``
writes one accepting every finding and exits 0.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TextIO

import click

from teamwire.cli.inputs import read_stdin_at_most, reader_may_leave, tolerant_stdout
from teamwire.envelope import name_problem
from teamwire.validator import engine
from teamwire.validator.baseline import (
    Baseline,
    BaselineError,
    apply_baseline,
    read_baseline,
    write_baseline,
)
from teamwire.validator.config import (
    ConfigError,
    LintConfig,
    Overrides,
    find_config,
    load_config,
    resolve,
)
from teamwire.validator.findings import FileReport, LintReport
from teamwire.validator.locate import with_file_lines
from teamwire.validator.options import LintOptions
from teamwire.validator.reporters import FORMATS
from teamwire.validator.runner import STDIN, Input, Progress, find_inputs, lint_inputs

LARGE_INPUT_BYTES = 16 * 1024 * 1024
"""Inputs at least this large get a progress bar (on a terminal, outside CI)."""


def _split(values: Sequence[str]) -> list[str]:
    return [part.strip() for value in values for part in value.split(",") if part.strip()]


def _severity_flags(values: Sequence[str]) -> dict[str, str]:
    result: dict[str, str] = {}
    for value in values:
        selector, sep, level = value.partition("=")
        if not sep or not selector.strip() or not level.strip():
            raise click.BadParameter(f"{value!r} is not SELECTOR=LEVEL", param_hint="--severity")
        result[selector.strip()] = level.strip()
    return result


def _in_ci() -> bool:
    return any(os.environ.get(name) for name in ("CI", "GITHUB_ACTIONS", "BUILDKITE", "TF_BUILD"))


@contextmanager
def _progress_bar(total: int, enabled: bool) -> Iterator[Progress | None]:
    if not enabled:
        yield None
        return
    from rich.progress import BarColumn, DownloadColumn, Progress, TextColumn, TimeRemainingColumn

    bar = Progress(TextColumn("linting"), BarColumn(), DownloadColumn(), TimeRemainingColumn(),
                   transient=True, console=None)
    with bar:
        task = bar.add_task("lint", total=total)

        def advance(_report: FileReport, size: int) -> None:
            bar.advance(task, size)

        yield advance


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("paths", nargs=-1, required=True, metavar="PATH...")
@click.option("--agent", metavar="NAME",
              help="Whose conversation a lone conversation file is, e.g. 'UI Operator_1' "
                   "(default: inferred).")
@click.option("--profile", type=click.Choice(["strict", "astrion"]),
              help="Protocol profile (default: strict, or the configured one).")
@click.option("-f", "--format", "--output-format", "output_format",
              type=click.Choice(list(FORMATS)), default="text", show_default=True,
              help="Output format.")
@click.option("-o", "--output-file", type=click.Path(dir_okay=False, writable=True),
              help="Write the report to this file instead of standard output.")
@click.option("--select", multiple=True, metavar="SELECTORS",
              help="Rules to check (codes, prefixes such as TW1, names, ALL); replaces the "
                   "configured selection. Comma-separated, repeatable.")
@click.option("--extend-select", multiple=True, metavar="SELECTORS",
              help="Rules to check in addition to the selection.")
@click.option("--ignore", multiple=True, metavar="SELECTORS", help="Rules not to check.")
@click.option("--severity", "severities", multiple=True, metavar="SELECTOR=LEVEL",
              help="Change the severity of rules (error, warning, info). Repeatable.")
@click.option("--exclude", multiple=True, metavar="GLOB",
              help="Skip files and directories matching GLOB when searching directories.")
@click.option("--no-respect-gitignore", is_flag=True,
              help="Search directories without passing over what git ignores (.gitignore).")
@click.option("--config", "config_path", type=click.Path(exists=True, dir_okay=False),
              help="Configuration file (teamwire.toml or pyproject.toml).")
@click.option("--isolated", is_flag=True, help="Ignore configuration files.")
@click.option("--exit-zero", is_flag=True, help="Exit with 0 even when errors are found.")
@click.option("--allow-empty", is_flag=True,
              help="Exit with 0 when no transcript was linted (no file found, or every file "
                   "found skipped); without it that is exit 2, so a CI job that checks nothing "
                   "does not pass.")
@click.option("-j", "--jobs", type=click.IntRange(min=0), default=1, show_default=True,
              help="Lint files in this many processes (0: one per CPU).")
@click.option("--statistics", is_flag=True,
              help="Print how many findings each rule has instead of the findings (text "
                   "format).")
@click.option("--show-settings", is_flag=True,
              help="Print the settings a run would use (configuration file, rules, "
                   "severities, ignores) and exit.")
@click.option("--show-files", is_flag=True,
              help="Print the files a run would read, in order, and exit.")
@click.option("--baseline", "baseline_path", metavar="FILE",
              type=click.Path(exists=True, dir_okay=False),
              help="Neither report nor count the findings whose fingerprints FILE holds "
                   "(written by --write-baseline, from the same working directory).")
@click.option("--write-baseline", "write_baseline_path", metavar="FILE",
              type=click.Path(dir_okay=False),
              help="Write the fingerprints of every finding to FILE as a baseline, report "
                   "nothing and exit 0 (2, writing nothing, if an input is unreadable).")
@click.option("-q", "--quiet", is_flag=True, help="Print findings only: no summary, no progress.")
@click.option("--no-progress", is_flag=True, help="Never show a progress bar.")
@click.option("--stdin-filename", default="<stdin>", show_default=True,
              help="Name for standard input in the report ('.jsonl' makes it JSON Lines).")
def lint(paths: tuple[str, ...], agent: str | None, profile: str | None, output_format: str,
         output_file: str | None, select: tuple[str, ...], extend_select: tuple[str, ...],
         ignore: tuple[str, ...], severities: tuple[str, ...], exclude: tuple[str, ...],
         no_respect_gitignore: bool, config_path: str | None, isolated: bool,
         exit_zero: bool, allow_empty: bool, jobs: int, statistics: bool, show_settings: bool,
         show_files: bool, baseline_path: str | None, write_baseline_path: str | None,
         quiet: bool, no_progress: bool, stdin_filename: str) -> None:
    """Check transcripts: session bundles (.json), conversations (.json array or .jsonl),
    directories (searched for *.json and *.jsonl) or - for standard input.

    Exit codes: 0 no errors (or --write-baseline written), 1 errors found, 2 usage
    error, unreadable input or baseline, or no transcript linted at all (unless
    --allow-empty). Findings --baseline accepts are not reported and do not count.
    """
    stdin_filename = stdin_filename.strip() or "<stdin>"  # a report needs a name for it
    if statistics and output_format != "text":
        raise click.UsageError(f"--statistics prints text, not {output_format}; the json "
                               "format lists every finding to count")
    if agent is not None and name_problem(agent) is not None:
        raise click.BadParameter(f"{name_problem(agent)}: {agent!r}", param_hint="--agent")
    accepted: Baseline | None = None
    if baseline_path is not None:
        try:
            accepted = read_baseline(baseline_path)
        except BaselineError as exc:
            click.echo(f"error: {exc}", err=True)
            sys.exit(2)
    flags = Overrides(select=_split(select) if select else None,
                      extend_select=_split(extend_select), ignore=_split(ignore),
                      severity=_severity_flags(severities), profile=profile, agent=agent,
                      exclude=list(exclude))
    config = LintConfig()
    try:
        if not isolated:
            found = Path(config_path) if config_path else find_config(Path.cwd())
            if found is not None:
                config = load_config(found)
                for warning in config.warnings:
                    click.echo(f"warning: {warning}", err=True)
        options, excluded = resolve(config, flags)
    except ConfigError as exc:
        click.echo(f"error: {exc}", err=True)
        sys.exit(2)
    # A report written into a searched directory is not a transcript: a second run skips it.
    skip = {os.path.realpath(output_file)} if output_file is not None else set()
    gitignore = config.respect_gitignore and not no_respect_gitignore
    inputs = find_inputs(paths, excluded, options.root, skip, gitignore)
    files = [i for i in inputs if isinstance(i, str)]
    if show_settings or show_files:
        _show(config, options, excluded, gitignore, inputs, stdin_filename, show_settings,
              show_files)
    if not inputs:
        where = ", ".join(paths)
        if excluded and find_inputs(paths, (), options.root, skip, gitignore):
            click.echo(f"warning: every *.json and *.jsonl file in {where} matches an exclude "
                       "glob; nothing to lint", err=True)
        elif gitignore and find_inputs(paths, excluded, options.root, skip, False):
            click.echo(f"warning: git ignores every *.json and *.jsonl file in {where}; nothing "
                       "to lint (--no-respect-gitignore searches them)", err=True)
        else:
            click.echo(f"warning: no *.json or *.jsonl files found in {where}", err=True)
    total = sum(os.path.getsize(f) for f in files if f != STDIN and os.path.isfile(f))
    show_bar = (not quiet and not no_progress and not _in_ci() and sys.stderr.isatty()
                and total >= LARGE_INPUT_BYTES)
    workers = jobs or os.cpu_count() or 1
    try:
        with _progress_bar(total, show_bar) as progress:
            report = lint_inputs(inputs, options, jobs=workers,
                                 stdin=lambda: read_stdin_at_most(engine.MAX_UNSIZED_BYTES),
                                 stdin_name=stdin_filename, progress=progress)
    except KeyboardInterrupt:
        click.echo("interrupted", err=True)
        sys.exit(2)
    empty = not report.files and not allow_empty
    if write_baseline_path is not None and not empty:
        _write_baseline(report, write_baseline_path)
    used = apply_baseline(report, accepted) if accepted is not None else None
    if not (empty and output_format == "text" and output_file is None):
        # An empty run is no pass: the text summary would say "All checks passed".
        _write(report, output_format, output_file, quiet,
               stdin_filename if STDIN in paths else None, statistics)
    if report.skipped and not quiet:
        click.echo(_skipped_note(report.skipped), err=True)
    if used is not None and not quiet:
        click.echo(f"note: {used.dropped} finding{'s' * (used.dropped != 1)} accepted by the "
                   f"baseline {baseline_path} not reported", err=True)
        if used.stale:
            # fixed, or edited into new findings: --write-baseline drops them, so that
            # the baseline does not go on accepting a finding that returns
            click.echo(f"note: {used.stale} entr{'ies' if used.stale != 1 else 'y'} of the "
                       f"baseline {baseline_path} matched no finding of the files linted; "
                       "write it again (--write-baseline) to drop them", err=True)
    for unreadable in report.unreadable:
        click.echo(f"error: {unreadable.error}", err=True)
    if empty:
        what = f"{len(report.skipped)} file{'s' * (len(report.skipped) != 1)} found, none a " \
               "transcript" if report.skipped else "no file found"
        click.echo(f"error: nothing was linted ({what}); --allow-empty accepts that",
                   err=True)
        sys.exit(2)
    sys.exit(report.exit_code(exit_zero))


def _write_baseline(report: LintReport, path: str) -> None:
    """--write-baseline: write it, say so, exit 0; write nothing and exit 2 if an input
    could not be read (a baseline of part of the inputs would hide nothing of the rest)."""
    for unreadable in report.unreadable:
        click.echo(f"error: {unreadable.error}", err=True)
    if report.unreadable:
        click.echo(f"error: {path} not written: an input could not be read", err=True)
        sys.exit(2)
    try:
        count = write_baseline(report, path)
    except BaselineError as exc:
        click.echo(f"error: {exc}", err=True)
        sys.exit(2)
    click.echo(f"wrote {path}: {count} finding{'s' * (count != 1)} accepted", err=True)
    sys.exit(0)


_SKIPPED_SHOWN = 5


def _skipped_note(skipped: list[FileReport]) -> str:
    """The note on files a directory search found that are no transcripts."""
    many = len(skipped) != 1
    rows = [f"note: {len(skipped)} file{'s' * many} found in directories {'are' if many else 'is'} "
            f"no transcript{'s' * many}, skipped (name a file on the command line to lint it "
            "anyway):"]
    rows += [f"  {r.file}: {r.skipped}" for r in skipped[:_SKIPPED_SHOWN]]
    if len(skipped) > _SKIPPED_SHOWN:
        rows.append(f"  and {len(skipped) - _SKIPPED_SHOWN} more")
    return "\n".join(rows)


def _show(config: LintConfig, options: LintOptions, excluded: list[str], gitignore: bool,
          inputs: list[Input], stdin_name: str, settings: bool, files: bool) -> None:
    """--show-settings / --show-files: print, and exit without linting (2 if a path is
    missing, as a run would)."""
    from teamwire.cli.lint_show import files_text, settings_text

    parts = ([settings_text(config.path, options, excluded, gitignore)] if settings else []) \
        + ([files_text(inputs, stdin_name)] if files else [])
    shown = "\n\n".join(part for part in parts if part)
    if shown:
        click.echo(shown)
    missing = [i for i in inputs if isinstance(i, FileReport)]
    for report in missing:
        click.echo(f"error: {report.error}", err=True)
    sys.exit(2 if missing else 0)


def _write(report: LintReport, output_format: str, output_file: str | None, quiet: bool,
           stdin_name: str | None, statistics: bool = False) -> None:
    chosen = FORMATS[output_format]
    if chosen.file_lines and not statistics:
        with_file_lines(report.files, stdin_name=stdin_name)
    if output_file is not None:
        try:
            with open(output_file, "w", encoding="utf-8", errors="backslashreplace") as handle:
                _emit(report, output_format, handle, False, quiet, statistics)
        except OSError as exc:
            click.echo(f"error: cannot write {output_file}: {exc.strerror or exc}", err=True)
            sys.exit(2)
        return
    tolerant_stdout()
    stream: TextIO = sys.stdout
    color = stream.isatty() and not os.environ.get("NO_COLOR")
    with reader_may_leave():  # `teamwire lint … | head`: the verdict still decides the exit
        _emit(report, output_format, stream, color, quiet, statistics)


def _emit(report: LintReport, output_format: str, stream: TextIO, color: bool,
          quiet: bool, statistics: bool = False) -> None:
    if statistics:
        from teamwire.validator.reporters.text import write_statistics

        write_statistics(report, stream, color, quiet)
        return
    if output_format == "text" and quiet:
        from teamwire.validator.reporters.text import line

        for finding in report.findings:
            stream.write(line(finding, color) + "\n")
        return
    FORMATS[output_format].write(report, stream, color)
