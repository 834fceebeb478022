"""The site's mkdocs hooks, imported from docs/hooks/ (they are not a package)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

HOOKS = Path(__file__).resolve().parents[2] / "docs" / "hooks"


def load(name: str) -> ModuleType:
    """The hook module docs/hooks/NAME.py, freshly imported."""
    spec = importlib.util.spec_from_file_location(f"docs_hook_{name}", HOOKS / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    # Dataclasses look their module up by name while the class is made.
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module
