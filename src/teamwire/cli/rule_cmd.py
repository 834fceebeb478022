"""``teamwire rule``."""

from __future__ import annotations

import click


@click.command()
def rule() -> None:
    """Not available yet."""
    raise click.UsageError("'teamwire rule' is not available in this build")
