"""``teamwire demo``: the scripted three-agent session through the reference router."""

from __future__ import annotations

import asyncio
import tempfile
from pathlib import Path
from typing import Any

import click
from rich.console import Console
from rich.panel import Panel
from rich.text import Text

from teamwire.router.demo import run_demo, validate_bundle, validate_events
from teamwire.router.records import RoutedMessage
from teamwire.router.store import SQLiteStore

_COLOURS = {"Team Leader": "magenta", "UI Operator_1": "cyan", "Full-Stack Engineer_1": "green"}


def _printer(console: Console) -> Any:
    def show(kind: str, data: dict[str, Any]) -> None:
        if kind == "deliver":
            message: RoutedMessage = data["message"]
            where = "tool result" if data["placement"] == "tool" else "user message"
            title = Text.assemble((message.sender, f"bold {_COLOURS.get(message.sender, 'white')}"),
                                  " ", (message.kind.label, "bold"))
            subtitle = f"to {data['receiver']} · {where} · {message.id}"
            console.print(Panel(message.content, title=title, title_align="left",
                                subtitle=subtitle, subtitle_align="right",
                                border_style=_COLOURS.get(message.sender, "white")))
        elif kind == "tool-error":
            error = data["error"]
            console.print(Text(f"  {data['agent']} · {data['tool']} failed: "
                               f"{error['code']} ({error['message']})", style="yellow"))

    return show


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
    console = Console(highlight=False)
    if directory is None:
        directory = Path(tempfile.mkdtemp(prefix="teamwire-demo-"))
    directory.mkdir(parents=True, exist_ok=True)
    db = directory / "router.db"
    for stale in (db, db.with_name("router.db-wal"), db.with_name("router.db-shm")):
        stale.unlink(missing_ok=True)
    store = SQLiteStore(db, synchronous=synchronous)
    try:
        session = asyncio.run(run_demo(store, None if quiet else _printer(console)))
    finally:
        store.close()
    bundle_path, events_path = session.write(directory)
    problems = validate_bundle(session.bundle(), str(bundle_path)) + validate_events(events_path)
    deliveries = sum(len(a["message_ids"]) for e in session.events for a in e["actions"]
                     if a["action"] == "ConsumeMessages")
    console.print(f"[bold]{len(session.events)}[/] events, [bold]{deliveries}[/] deliveries, "
                  f"{session.clock.now():g} s of virtual time")
    console.print(f"bundle: {bundle_path}\nevent log: {events_path}\nstore: {db}")
    for problem in problems:
        style = "red" if problem.fatal else "yellow"
        console.print(Text(problem.text, style=style))
    if any(problem.fatal for problem in problems):
        console.print("[red]the bundle fails teamwire lint (strict) or a schema[/]")
        raise SystemExit(1)
    console.print("[green]bundle valid: schema and teamwire lint (strict) pass[/]")
