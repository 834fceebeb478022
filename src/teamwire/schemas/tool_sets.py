"""The protocol tools of each profile, shipped as ``tools/<profile>.json`` beside the schemas."""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from teamwire.schemas.catalog import SchemaCatalog
from teamwire.schemas.errors import SchemaLoadError, UnknownProfileError, UnknownToolError

TOOL_SCHEMA = "tools"
RESULT_SCHEMA = "tool-results"
DEFAULT_PROFILE = "strict"


@dataclass(frozen=True)
class ToolSet:
    """The tool names of one profile.

    ``leader``: protocol tools offered to the Team Leader; ``sub_agent``: protocol tools
    offered to every sub-agent; ``base``: the sub-agents' ordinary tools (not protocol
    tools); ``removed``: names no longer offered in multi-agent mode; ``forbidden``:
    names a sub-agent must never call; ``earlier``: tool sets of earlier versions of the
    same implementation that the profile also accepts; ``result_texts``: tools whose results
    the implementation writes as text, each with the beginnings of its success texts.
    """

    profile: str
    leader: tuple[str, ...]
    sub_agent: tuple[str, ...]
    base: tuple[str, ...]
    removed: tuple[str, ...]
    forbidden: tuple[str, ...]
    earlier: tuple[str, ...] = ()
    result_texts: tuple[tuple[str, tuple[str, ...]], ...] = ()

    @property
    def protocol_tools(self) -> tuple[str, ...]:
        """Every protocol tool of the profile, leader's first, each once."""
        return tuple(dict.fromkeys(self.leader + self.sub_agent))


def arguments_pointer(tool_name: str, profile: str) -> str:
    """The ``$defs`` key of a tool's arguments schema in ``tools.schema.json``."""
    prefix = "" if profile == DEFAULT_PROFILE else f"{profile}."
    return f"/$defs/{prefix}{tool_name}.arguments"


def _shape_problem(data: Any) -> str | None:
    """What keeps ``data`` from having the shape this module reads, or None.

    The shipped files are validated against the ``tool-set`` schema by the test suite;
    doing that on every start would cost the import of jsonschema.
    """
    if not isinstance(data, dict):
        return "a tool set must be a JSON object"
    if not isinstance(data.get("profile"), str):
        return "profile must be a string"
    for side in ("leader", "sub_agent"):
        tools = data.get(side)
        if not isinstance(tools, list) or not all(
                isinstance(t, dict) and isinstance(t.get("function"), dict)
                and isinstance(t["function"].get("name"), str) for t in tools):
            return f"{side} must be an array of tool definitions with a function name"
    for key in ("base", "removed", "forbidden"):
        names = data.get(key)
        if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
            return f"{key} must be an array of tool names"
    earlier = data.get("earlier", [])
    if not isinstance(earlier, list) or not all(isinstance(n, str) for n in earlier):
        return "earlier must be an array of tool-set names"
    texts = data.get("result_texts", {})
    if not isinstance(texts, dict) or not all(
            isinstance(v, list) and v and all(isinstance(t, str) and t for t in v)
            for v in texts.values()):
        return "result_texts must map tool names to arrays of texts"
    return None


class ToolSets:
    """Tool-set files of one schema directory (their shape checked on load)."""

    def __init__(self, catalog: SchemaCatalog) -> None:
        self._catalog = catalog
        self._directory: Path = catalog.directory / "tools"
        self._data: dict[str, dict[str, Any]] = {}

    def profiles(self) -> list[str]:
        """Names of the tool sets shipped, sorted: one per profile, and the earlier versions
        of an implementation a profile also accepts (``ToolSet.earlier``)."""
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
        problem = _shape_problem(data)
        if problem is not None:
            raise SchemaLoadError(f"{path}: {problem}")
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
            earlier=tuple(data.get("earlier", ())),
            result_texts=tuple((tool, tuple(texts))
                               for tool, texts in data.get("result_texts", {}).items()),
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
