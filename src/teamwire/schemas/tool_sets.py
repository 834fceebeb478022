"""The protocol tools of each profile, shipped as ``tools/<profile>.json`` beside the schemas."""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from teamwire.schemas.catalog import SchemaCatalog
from teamwire.schemas.errors import SchemaLoadError, UnknownProfileError, UnknownToolError

TOOL_SET_SCHEMA = "tool-set"
TOOL_SCHEMA = "tools"
RESULT_SCHEMA = "tool-results"
DEFAULT_PROFILE = "strict"


@dataclass(frozen=True)
class ToolSet:
    """The tool names of one profile.

    ``leader``: protocol tools offered to the Team Leader; ``sub_agent``: protocol tools
    offered to every sub-agent; ``base``: the sub-agents' ordinary tools (not protocol
    tools); ``removed``: names no longer offered in multi-agent mode; ``forbidden``:
    names a sub-agent must never call.
    """

    profile: str
    leader: tuple[str, ...]
    sub_agent: tuple[str, ...]
    base: tuple[str, ...]
    removed: tuple[str, ...]
    forbidden: tuple[str, ...]

    @property
    def protocol_tools(self) -> tuple[str, ...]:
        """Every protocol tool of the profile, leader's first, each once."""
        return tuple(dict.fromkeys(self.leader + self.sub_agent))


def arguments_pointer(tool_name: str, profile: str) -> str:
    """The ``$defs`` key of a tool's arguments schema in ``tools.schema.json``."""
    prefix = "" if profile == DEFAULT_PROFILE else f"{profile}."
    return f"/$defs/{prefix}{tool_name}.arguments"


class ToolSets:
    """Tool-set files of one schema directory, validated against the ``tool-set`` schema."""

    def __init__(self, catalog: SchemaCatalog) -> None:
        self._catalog = catalog
        self._directory: Path = catalog.directory / "tools"
        self._data: dict[str, dict[str, Any]] = {}

    def profiles(self) -> list[str]:
        """Names of the profiles that ship a tool set, sorted."""
        return sorted(p.stem for p in self._directory.glob("*.json"))

    def data(self, profile: str) -> dict[str, Any]:
        """The tool-set file of ``profile`` as loaded (shared; copy before changing it)."""
        cached = self._data.get(profile)
        if cached is not None:
            return cached
        if profile not in self.profiles():
            raise UnknownProfileError(profile, self.profiles())
        path = self._directory / f"{profile}.json"
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, ValueError) as exc:
            raise SchemaLoadError(f"{path}: {exc}") from exc
        problems = self._catalog.validate(TOOL_SET_SCHEMA, data)
        if problems:
            first = problems[0]
            raise SchemaLoadError(f"{path}: {first.path or '(root)'}: {first.message}")
        if data["profile"] != profile:
            raise SchemaLoadError(f"{path}: profile is {data['profile']!r}, expected {profile!r}")
        for side in ("leader", "sub_agent"):
            names = [tool["function"]["name"] for tool in data[side]]
            if len(set(names)) != len(names):
                raise SchemaLoadError(f"{path}: {side} lists a tool twice")
        return self._data.setdefault(profile, data)

    def copy_of(self, profile: str) -> dict[str, Any]:
        """A private copy of the tool-set file of ``profile``."""
        return copy.deepcopy(self.data(profile))

    def names(self, profile: str) -> ToolSet:
        """The tool names of ``profile``."""
        data = self.data(profile)
        return ToolSet(
            profile=profile,
            leader=tuple(tool["function"]["name"] for tool in data["leader"]),
            sub_agent=tuple(tool["function"]["name"] for tool in data["sub_agent"]),
            base=tuple(data["base"]),
            removed=tuple(data["removed"]),
            forbidden=tuple(data["forbidden"]),
        )

    def arguments_ref(self, tool_name: str, profile: str) -> str:
        """The catalog reference of a protocol tool's arguments schema."""
        known = self.names(profile).protocol_tools
        if tool_name not in known:
            raise UnknownToolError(tool_name, known, profile)
        return TOOL_SCHEMA + "#" + arguments_pointer(tool_name, profile)

    def result_tools(self) -> list[str]:
        """Tools whose success result has a schema in ``tool-results``, sorted."""
        defs = self._catalog.schema(RESULT_SCHEMA).get("$defs", {})
        return sorted(key[: -len(".result")] for key in defs if key.endswith(".result"))
