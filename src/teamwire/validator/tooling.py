"""The protocol tools of a profile as the linter needs them: name sets and argument validators."""

from __future__ import annotations

from collections.abc import Callable
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


Check = Callable[[Any], bool]

_TYPES: dict[str, Check] = {
    "object": lambda v: type(v) is dict,
    "array": lambda v: type(v) is list,
    "string": lambda v: type(v) is str,
    "boolean": lambda v: type(v) is bool,
    "null": lambda v: v is None,
    "integer": lambda v: type(v) is int or (type(v) is float and v.is_integer()),
    "number": lambda v: type(v) is int or type(v) is float,
}
_COMPILABLE = frozenset({"type", "properties", "required", "enum", "items", "description",
                         "title", "default", "examples"})


def compile_check(schema: Any) -> Check | None:
    """A fast predicate equivalent to ``schema`` for the keyword subset tool schemas use.

    Returns None when the schema uses anything else; callers then keep the full
    validator. A differential test holds the two to the same verdicts.
    """
    if schema is True:
        return lambda _v: True
    if type(schema) is not dict or not set(schema) <= _COMPILABLE:
        return None
    checks: list[Check] = []
    kind = schema.get("type")
    if kind is not None:
        kinds = [kind] if type(kind) is str else kind
        if type(kinds) is not list or not all(k in _TYPES for k in kinds):
            return None
        tests = [_TYPES[k] for k in kinds]
        checks.append(tests[0] if len(tests) == 1 else (lambda v: any(t(v) for t in tests)))
    if "enum" in schema:
        options = schema["enum"]
        if type(options) is not list or not all(type(o) in (str, int) for o in options):
            return None
        allowed = frozenset((type(o), o) for o in options)
        checks.append(lambda v: (type(v), v) in allowed if type(v) in (str, int) else False)
    if "items" in schema:
        item = compile_check(schema["items"])
        if item is None:
            return None
        checks.append(lambda v: type(v) is not list or all(item(x) for x in v))
    if "properties" in schema or "required" in schema:
        props: dict[str, Check] = {}
        for name, sub in (schema.get("properties") or {}).items():
            check = compile_check(sub)
            if check is None:
                return None
            props[name] = check
        required = tuple(schema.get("required") or ())

        def members(v: Any) -> bool:
            if type(v) is not dict:
                return True
            for name in required:
                if name not in v:
                    return False
            for name, check in props.items():  # noqa: SIM110 (a loop is faster here)
                if name in v and not check(v[name]):
                    return False
            return True

        checks.append(members)
    if len(checks) == 1:
        return checks[0]
    return lambda v: all(c(v) for c in checks)


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
    _checks: dict[str, Check | None] = field(default_factory=dict)

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
        if tool not in self._checks:
            validator = self.validator(tool)
            self._checks[tool] = compile_check(validator.schema) if validator else None
        check = self._checks[tool]
        if check is not None and check(arguments):
            return []
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
