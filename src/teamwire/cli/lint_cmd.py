"""``teamwire lint``."""

from __future__ import annotations

import click


@click.command()
def lint() -> None:
    """Not available yet."""
    raise click.UsageError("'teamwire lint' is not available in this build")
