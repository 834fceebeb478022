"""The ``teamwire`` command line.

Subcommands are imported only when used, so ``teamwire lint`` in a pre-commit
hook does not pay for loading the router.
"""

from __future__ import annotations

import importlib
import sys

import click

from teamwire._version import __version__
from teamwire.spec_version import SPEC_VERSION

# name -> (module, attribute, one-line help shown by `teamwire --help`)
_COMMANDS: dict[str, tuple[str, str, str]] = {
    "lint": ("teamwire.cli.lint_cmd", "lint", "Check transcripts against the protocol."),
    "rule": ("teamwire.cli.rule_cmd", "rule", "Explain lint rules."),
    "envelope": ("teamwire.cli.envelope_cmd", "envelope", "Parse and render envelopes."),
    "schema": ("teamwire.cli.schema_cmd", "schema", "List, show, locate and apply the JSON Schemas."),
    "demo": ("teamwire.cli.demo_cmd", "demo", "Run the reference scenario through the router."),
    "run": ("teamwire.cli.run_cmd", "run", "Run the reference router against a model endpoint."),
    "certify": ("teamwire.cli.certify_cmd", "certify", "Certify a router, black-box."),
    "import": ("teamwire.cli.import_cmd", "import_group", "Import other systems' sessions as bundles."),
    "view": ("teamwire.cli.view_cmd", "view", "Draw a session: HTML page or terminal bubbles."),
}


class _LazyGroup(click.Group):
    """A group whose subcommands are imported on first use."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *_COMMANDS})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name in _COMMANDS:
            module, attribute, _ = _COMMANDS[cmd_name]
            command = getattr(importlib.import_module(module), attribute)
            assert isinstance(command, click.Command)
            return command
        return super().get_command(ctx, cmd_name)

    def invoke(self, ctx: click.Context) -> object:
        try:
            return super().invoke(ctx)
        except BrokenPipeError:
            # The reader of standard output went away (`teamwire rule --all | head`). Commands
            # whose exit code is a verdict catch this themselves; here output was all there
            # was to give, so stop quietly and succeed (click would exit 1).
            from teamwire.cli.inputs import silence_stdout

            silence_stdout()
            ctx.exit(0)
        except OSError as exc:
            # Output that cannot be written at all (standard output closed, a full disk):
            # an error with the reason, never a traceback. Reads report their own errors.
            from teamwire.cli.inputs import fail, silence_stdout

            silence_stdout()
            where = f"{exc.filename}: " if exc.filename else ""
            fail(f"error: cannot write the output: {where}{exc.strerror or exc}")

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        rows = [(name, help_) for name, (_, _, help_) in sorted(_COMMANDS.items())]
        with formatter.section("Commands"):
            formatter.write_dl(rows)


@click.group(cls=_LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="teamwire",
                      message=f"%(prog)s %(version)s (spec {SPEC_VERSION})")
def main() -> None:
    """Specification and conformance toolkit for the Team Leader / sub-agent protocol."""
    from teamwire.cli.inputs import ClosedStream

    # Started with a standard stream closed: Python leaves it None, and a command that uses
    # it would fail with an AttributeError; a stand-in fails with a reportable OSError.
    if sys.stdout is None:
        sys.stdout = ClosedStream("standard output")
    if sys.stdin is None:
        sys.stdin = ClosedStream("standard input")
