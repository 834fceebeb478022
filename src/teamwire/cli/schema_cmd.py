"""``teamwire schema``: list, show and locate the shipped JSON Schemas."""

from __future__ import annotations

import click


@click.group()
def schema() -> None:
    """List, show and locate the protocol's JSON Schemas."""
