"""``teamwire demo``."""

from __future__ import annotations

import click


@click.command()
def demo() -> None:
    """Not available yet."""
    raise click.UsageError("'teamwire demo' is not available in this build")
