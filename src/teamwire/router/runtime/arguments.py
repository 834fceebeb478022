"""The router's reading of tool-call arguments: the shared checker of profile strict.

``teamwire.schemas.arguments`` holds the rules (TW-TOOL-023, -024, -038, -039), so that the
router refuses exactly the arguments ``teamwire lint`` reports.
"""

from __future__ import annotations

from typing import Any

from teamwire import schemas
from teamwire.schemas.arguments import ArgumentChecker

_CHECKER = ArgumentChecker(("strict",))
"""The rules of the strict tools, worked out once per process from the shipped schemas."""


def tool_definitions() -> dict[str, list[dict[str, Any]]]:
    """The strict profile's tool sets: ``leader``, ``sub_agent`` and ``base``."""
    data = schemas.tool_set("strict")
    return {key: list(data.get(key, [])) for key in ("leader", "sub_agent", "base")}


def argument_problem(tool: str, arguments: object) -> tuple[dict[str, Any] | None, str | None]:
    """Parse and check ``arguments`` of ``tool``: (arguments, None) or (None, why not)."""
    parsed, problems = _CHECKER.check(tool, arguments, limit=1)
    if problems:
        return None, problems[0].message
    return parsed, None
