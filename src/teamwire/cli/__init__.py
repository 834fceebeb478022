"""The ``teamwire`` command line."""

from __future__ import annotations

import click

from teamwire._version import __version__
from teamwire.cli.demo_cmd import demo
from teamwire.cli.envelope_cmd import envelope
from teamwire.cli.lint_cmd import lint
from teamwire.cli.rule_cmd import rule
from teamwire.cli.schema_cmd import schema


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="teamwire")
def main() -> None:
    """Specification and conformance toolkit for the Team Leader / sub-agent protocol."""


for _command in (lint, rule, envelope, schema, demo):
    main.add_command(_command)
