"""The ``teamwire`` command line."""

from __future__ import annotations

import click

from teamwire._version import __version__
from teamwire.cli.envelope_cmd import envelope
from teamwire.cli.schema_cmd import schema


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="teamwire")
def main() -> None:
    """Specification and conformance toolkit for the Team Leader / sub-agent protocol."""


main.add_command(envelope)
main.add_command(schema)
