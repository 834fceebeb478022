"""The protocol tools of a profile as the linter needs them: name sets and argument validators."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from jsonschema import Draft202012Validator

from teamwire import schemas
from teamwire.envelope import Profile

ASK_TOOLS = frozenset({"ask_master", "ask_other_agent", "ask_sub_agent"})
"""Tools whose successful result is an Answer envelope."""

TARGETING_TOOLS = frozenset({"terminate_sub_agent", "send_message_to_sub_agent", "ask_sub_agent",
                             "answer_sub_agent_question", "get_sub_agent_status",
                             "stop_sub_agent"})
"""Leader tools that name one sub-agent by ``agent_id`` (and optional ``role_id``)."""


@dataclass
class ToolCatalog:
    """Tool names of one profile and their argument validators, each built once."""

    profile: Profile
    leader: frozenset[str]
    sub_agent: frozenset[str]
    base: frozenset[str]
    removed: frozenset[str]
    forbidden: frozenset[str]
    leader_only: frozenset[str]
    sub_agent_only: frozenset[str]
    protocol: frozenset[str]
    _validators: dict[str, Draft202012Validator] = field(default_factory=dict)

    def validator(self, tool: str) -> Draft202012Validator | None:
        """The arguments validator of protocol tool ``tool`` (None for any other tool)."""
        cached = self._validators.get(tool)
        if cached is not None or tool not in self.protocol:
            return cached
        built = schemas.tool_arguments_validator(tool, self.profile.value)
        self._validators[tool] = built
        return built

    def argument_errors(self, tool: str, arguments: Any, limit: int = 3) -> list[str]:
        """Up to ``limit`` reasons why ``arguments`` do not fit the schema of ``tool``."""
        validator = self.validator(tool)
        if validator is None or validator.is_valid(arguments):
            return []
        problems: list[str] = []
        for error in sorted(validator.iter_errors(arguments), key=lambda e: list(e.path)):
            where = "/".join(str(p) for p in error.absolute_path)
            problems.append(f"{where}: {error.message}" if where else error.message)
            if len(problems) == limit:
                break
        return problems


_CATALOGS: dict[Profile, ToolCatalog] = {}


def tool_catalog(profile: Profile) -> ToolCatalog:
    """The catalog of ``profile``, loaded once per process."""
    catalog = _CATALOGS.get(profile)
    if catalog is None:
        names = schemas.tool_names(profile.value)
        leader, sub = frozenset(names.leader), frozenset(names.sub_agent)
        catalog = ToolCatalog(
            profile=profile, leader=leader, sub_agent=sub, base=frozenset(names.base),
            removed=frozenset(names.removed), forbidden=frozenset(names.forbidden),
            leader_only=leader - sub, sub_agent_only=sub - leader, protocol=leader | sub)
        _CATALOGS[profile] = catalog
    return catalog
