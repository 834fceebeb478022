"""Locate the files teamwire ships beside its code: grammar, spec, schemas, vectors.

In a wheel they live under ``teamwire/_data``; in a source checkout (editable
install, tests) they are read from the repository root, so there is one copy.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

_PACKAGE_DIR = Path(__file__).resolve().parent


@cache
def data_root() -> Path:
    """Return the directory that holds ``grammar/``, ``spec/`` and ``conformance/``."""
    packaged = _PACKAGE_DIR / "_data"
    if (packaged / "grammar").is_dir():
        return packaged
    checkout = _PACKAGE_DIR.parent.parent
    if (checkout / "grammar").is_dir():
        return checkout
    raise FileNotFoundError("teamwire data files not found: reinstall the package")


def data_path(*parts: str) -> Path:
    """Return the path of a shipped data file, e.g. ``data_path("grammar", "envelope.lark")``."""
    return data_root().joinpath(*parts)
