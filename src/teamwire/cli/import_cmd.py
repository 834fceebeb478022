"""``teamwire import``: turn other systems' stored sessions into session bundles.

Exit codes of ``teamwire import astrion``: 0 every conversation imported (what could not
be recovered, such as the raw tool results astrion never keeps, is a warning on standard
error with its file and position), 1 a conversation could not be imported, or with
``--strict`` any warning, 2 unusable input or output (DIR is not an astrion data directory,
OUTDIR cannot be written) or a usage error.
"""

from __future__ import annotations

import click

from teamwire.cli.inputs import fail, reader_may_leave, terminal_safe
from teamwire.importers.astrion import UnusableInput, UnusableOutput, import_data_dir
from teamwire.importers.files import DEFAULT_MAX_BYTES, Problem

# A warning names a file, a position and what is wrong, often longer than a terminal line;
# only one that quotes something huge from the input (a task id, say) is cut.
_MAX_WARNING = 2000


def _shorten(line: str) -> str:
    if len(line) <= _MAX_WARNING:
        return line
    half = _MAX_WARNING // 2
    return f"{line[:half]} … {line[-half:]}"


@click.group("import", context_settings={"help_option_names": ["-h", "--help"]})
def import_group() -> None:
    """Import other systems' stored sessions as teamwire session bundles."""


@import_group.command("astrion", context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("directory", metavar="DIR")
@click.option("-o", "--output", "out_dir", required=True, metavar="OUTDIR",
              help="Directory to write the bundles to (created if missing).")
@click.option("--workspace", metavar="NAME",
              help="Import only this workspace (a directory under DIR/conversations).")
@click.option("--force", is_flag=True, help="Overwrite bundles that already exist in OUTDIR.")
@click.option("--max-file-size", "max_bytes", type=click.IntRange(min=1), metavar="BYTES",
              default=DEFAULT_MAX_BYTES, show_default=True,
              help="Skip (and report) files larger than this.")
@click.option("--plain", is_flag=True,
              help="Write only what the bundle format defines: no 'astrion' members "
                   "(astrion's message ids and times, the tool text its model saw).")
@click.option("-q", "--quiet", is_flag=True,
              help="Print no summary line (warnings are still printed).")
@click.option("--strict", is_flag=True,
              help="Exit 1 on any warning, not only when a conversation could not be "
                   "imported.")
def astrion(directory: str, out_dir: str, workspace: str | None, force: bool, max_bytes: int,
            plain: bool, quiet: bool, strict: bool) -> None:
    """Import an astrion data directory (astrion's DATA_DIR) into OUTDIR: one session
    bundle per conversation, named <workspace>.<conversation>.json, holding the Team
    Leader and every sub-agent of that conversation. Check them with
    `teamwire lint --profile astrion OUTDIR`.

    Each bundle written is printed on standard output; whatever could not be recovered
    (a missing sub-agent conversation, a tool message without its raw result, an unknown
    role, an unreadable file) is a warning on standard error with its file, line and
    column. Bundles are written whole or not at all.

    Exit codes: 0 every conversation imported (warnings printed), 1 a conversation could
    not be imported, or with --strict any warning, 2 unusable input or output (DIR is not
    an astrion data directory, OUTDIR cannot be written) or a usage error.
    """

    def report(problem: Problem) -> None:
        click.echo(terminal_safe(_shorten(problem.render())), err=True)

    def wrote(path: str) -> None:
        with reader_may_leave():
            click.echo(terminal_safe(path))

    try:
        summary = import_data_dir(directory, out_dir, report=report, workspace=workspace,
                                  force=force, max_bytes=max_bytes, plain=plain, wrote=wrote)
    except (UnusableInput, UnusableOutput) as exc:
        fail(f"error: {exc}")
    except KeyboardInterrupt:
        fail("interrupted; the bundles printed so far are complete")
    if not quiet:
        count = len(summary.written)
        parts = [f"imported {count} conversation{'s' * (count != 1)} into {out_dir}"]
        if summary.kept:
            parts.append(f"{len(summary.kept)} left as they were (--force overwrites)")
        if summary.skipped:
            parts.append(f"{summary.skipped} not imported")
        if summary.problems:
            parts.append(f"{summary.problems} warning{'s' * (summary.problems != 1)}")
        click.echo(terminal_safe(", ".join(parts)), err=True)
    not_imported = summary.skipped + len(summary.kept)
    raise SystemExit(1 if not_imported or (strict and summary.problems) else 0)
