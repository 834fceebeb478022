"""``teamwire demo``: the scripted three-agent session through the reference router."""

from __future__ import annotations

import asyncio
import json
import shlex
import sqlite3
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn

import click
from rich.text import Text

from teamwire import schemas
from teamwire.cli.inputs import fail
from teamwire.cli.session_show import PipeConsole, SessionShow, final_answer
from teamwire.envelope import Profile
from teamwire.router.demo import DELIBERATE_ERRORS, run_demo
from teamwire.router.store import SQLiteStore
from teamwire.validator import LintOptions, Severity, lint_value

# What the demo writes into its directory, and the session name its bundle carries.
_OUTPUTS = ("bundle.json", "events.jsonl", "router.db", "router.db-wal", "router.db-shm")
_SESSION = "teamwire-demo"


@dataclass(frozen=True)
class Problem:
    """One schema error or lint finding about the demo's output; ``fatal`` ones fail the demo."""

    text: str
    fatal: bool


def validate_bundle(bundle: dict[str, Any], name: str = "bundle.json") -> list[Problem]:
    """Check ``bundle`` against its schema, then with ``teamwire lint`` (strict profile).

    Schema errors and error-severity findings are fatal; warnings and notes are
    listed too, not fatal.
    """
    problems = [Problem(f"schema: {e.path or '/'}: {e.message}", True)
                for e in schemas.validate("bundle", bundle)]
    report = lint_value(bundle, name, LintOptions(profile=Profile.STRICT))
    for finding in report.findings:
        problems.append(Problem(
            f"lint {finding.severity.value} {finding.rule} at {finding.pointer or '/'}: "
            f"{finding.message}", finding.severity is Severity.ERROR))
    return problems


def validate_events(path: Path) -> list[Problem]:
    """Lines of an event log that do not match the event-log schema (all fatal)."""
    validator = schemas.validator("event-log")
    problems = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        for error in validator.iter_errors(json.loads(line)):
            problems.append(Problem(f"event log line {number}: {error.message}", True))
    return problems


def _fail(message: str) -> NoReturn:
    fail(f"error: {message}")


def _is_demo_output(directory: Path) -> bool:
    """Whether ``directory``'s bundle.json is one an earlier demo wrote."""
    try:
        bundle = json.loads((directory / "bundle.json").read_bytes())
    except (OSError, ValueError, RecursionError):
        return False
    return isinstance(bundle, dict) and bundle.get("session") == _SESSION


def _prepare(directory: Path) -> None:
    """Create ``directory``; exit 2 rather than overwrite files the demo did not write."""
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        _fail(f"cannot create {directory}: {exc.strerror or exc}")
    if not directory.is_dir():
        _fail(f"{directory} is not a directory")
    present = [name for name in _OUTPUTS if (directory / name).exists()
               or (directory / name).is_symlink()]
    if present and not _is_demo_output(directory):
        _fail(f"{directory} already holds {', '.join(present)}, not written by an earlier "
              f"demo; choose another directory or remove them")
    for name in present:
        try:
            (directory / name).unlink()
        except OSError as exc:
            _fail(f"cannot replace {directory / name}: {exc.strerror or exc}")


@click.command()
@click.option("--dir", "directory", type=click.Path(file_okay=False, path_type=Path),
              help="Where to write router.db, bundle.json and events.jsonl "
                   "(default: a temporary directory).")
@click.option("--synchronous", type=click.Choice(["full", "normal"]), default="full",
              show_default=True, help="SQLite synchronous setting of the router's store.")
@click.option("--quiet", is_flag=True, help="Print only the summary.")
def demo(directory: Path | None, synchronous: str, quiet: bool) -> None:
    """Run a scripted Team Leader / sub-agent session through the reference router.

    Shows the conversation as a chat front end would, writes the session
    bundle and the event log, and exits 0 only if the bundle passes its schema
    and `teamwire lint` (strict profile, no error-severity finding) and the
    event log matches its schema.
    """
    console = PipeConsole(highlight=False)
    show = SessionShow(console, explained=DELIBERATE_ERRORS)
    temporary = directory is None
    if directory is None:
        try:
            directory = Path(tempfile.mkdtemp(prefix="teamwire-demo-"))
        except OSError as exc:
            _fail(f"cannot create a temporary directory: {exc.strerror or exc}")
    _prepare(directory)
    db = directory / "router.db"
    try:
        store = SQLiteStore(db, synchronous=synchronous)
        try:
            session = asyncio.run(run_demo(store, None if quiet else show))
        finally:
            store.close()
        bundle_path, events_path = session.write(directory)
    except (OSError, sqlite3.Error) as exc:
        _fail(f"cannot write the demo's files in {directory}: "
              f"{getattr(exc, 'strerror', None) or exc}")
    if not quiet:
        show.final_answer(final_answer(session.conversations))
    problems = validate_bundle(session.bundle(), str(bundle_path)) + validate_events(events_path)
    deliveries = sum(len(a["message_ids"]) for e in session.events for a in e["actions"]
                     if a["action"] == "ConsumeMessages")
    console.print(f"[bold]{len(session.events)}[/] events, [bold]{deliveries}[/] deliveries, "
                  f"{session.clock.now():g} s of virtual time")
    # Paths are printed whole (never wrapped) and never read as markup.
    console.print(Text(f"files written to {directory}"
                       f"{' (a new temporary directory; --dir DIR chooses one)' if temporary else ''}"
                       f":\nbundle: {bundle_path}\nevent log: {events_path}\nstore: {db}"),
                  soft_wrap=True)
    for problem in problems:
        style = "red" if problem.fatal else "yellow"
        console.print(Text(problem.text, style=style))
    if any(problem.fatal for problem in problems):
        console.print("[red]the bundle fails teamwire lint (strict) or a schema[/]")
        raise SystemExit(1)
    console.print("[green]bundle valid: schema and teamwire lint (strict) pass[/]")
    shown = shlex.quote(str(bundle_path))
    console.print(Text(f"next: teamwire view {shown} (draws the session as a page), "
                       f"teamwire lint {shown}"), soft_wrap=True)
