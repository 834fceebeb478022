"""``teamwire view``: a session drawn as one self-contained HTML page, or as chat bubbles in
the terminal.

Exit codes: 0 the page was written (or the session printed), whatever the findings; 1 the
page was written but --open found no browser to show it in; 2 a usage error, an input that
cannot be read or is no session bundle or conversation (not UTF-8, not JSON, another shape,
an event log), or an output that cannot be written.
"""

from __future__ import annotations

import os
import sys
import webbrowser
from pathlib import Path

import click

from teamwire.cli.inputs import fail, read_input
from teamwire.envelope import name_problem
from teamwire.validator.config import (
    ConfigError,
    LintConfig,
    Overrides,
    find_config,
    load_config,
    resolve,
)
from teamwire.view.session import Session, UnusableInput, load_session


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("path", metavar="PATH")
@click.option("-o", "--output", metavar="FILE.html",
              help="Where to write the page (default: PATH with the suffix .html; '-' for "
                   "standard output).")
@click.option("--open", "open_page", is_flag=True, help="Open the page in the web browser.")
@click.option("--terminal", is_flag=True,
              help="Print the session as chat bubbles instead (paged on a terminal).")
@click.option("--profile", type=click.Choice(["strict", "astrion"]),
              help="Protocol profile the findings are made with (default: strict, or the "
                   "configured one).")
@click.option("--agent", metavar="NAME",
              help="Whose conversation a lone conversation file is (default: inferred).")
@click.option("--config", "config_path", type=click.Path(exists=True, dir_okay=False),
              help="Lint configuration file (teamwire.toml or pyproject.toml).")
@click.option("--isolated", is_flag=True, help="Ignore configuration files.")
def view(path: str, output: str | None, open_page: bool, terminal: bool, profile: str | None,
         agent: str | None, config_path: str | None, isolated: bool) -> None:
    """Draw a session bundle or a conversation (.json, .jsonl, or - for standard input):
    one lane per agent, every protocol message from where it was sent to where it arrived,
    with the findings of `teamwire lint`.

    Exit codes: 0 drawn, 1 drawn but --open found no browser, 2 usage error or an input
    that is no bundle or conversation (an event log is not one: view the bundle).
    """
    if terminal and (output is not None or open_page):
        raise click.UsageError("--terminal prints the session; it writes no page to "
                               "--output or --open")
    if agent is not None and name_problem(agent) is not None:
        raise click.BadParameter(f"{name_problem(agent)}: {agent!r}", param_hint="--agent")
    if os.path.isdir(path):
        fail(f"error: {path} is a directory; name a session bundle or a conversation file")
    config = LintConfig()
    try:
        if not isolated:
            found = Path(config_path) if config_path else find_config(Path.cwd())
            if found is not None:
                config = load_config(found)
        options, _excluded = resolve(config, Overrides(profile=profile, agent=agent))
    except ConfigError as exc:
        fail(f"error: {exc}")
    name = "<stdin>" if path == "-" else path
    data = read_input(path)
    try:
        session = load_session(data, name, options)
    except UnusableInput as exc:
        fail(f"error: cannot draw {exc}")
    if terminal:
        _print(session)
        return
    from teamwire.view.page import render_page

    page = render_page(session)
    if output is None:
        output = "-" if path == "-" else str(Path(path).with_suffix(".html"))
    if output == "-":
        sys.stdout.write(page)
        sys.stdout.flush()
        return
    target = Path(output)
    if path != "-" and target.exists() and target.resolve() == Path(path).resolve():
        fail(f"error: {output} is the input; choose another file with -o")
    try:
        target.write_text(page, encoding="utf-8")
    except OSError as exc:
        fail(f"error: cannot write {output}: {exc.strerror or exc}")
    click.echo(f"wrote {output} ({session.messages} messages, {len(session.lanes)} "
               f"lane{'s' * (len(session.lanes) != 1)}, {len(session.findings)} "
               f"finding{'s' * (len(session.findings) != 1)})", err=True)
    if open_page and not webbrowser.open(target.resolve().as_uri()):
        fail(f"error: no web browser could be started to open the page (set BROWSER to "
             f"one); the page is written: {output}", code=1)


def _print(session: Session) -> None:
    from rich.console import Console

    from teamwire.view.terminal import print_session

    print_session(session, Console(highlight=False))
