"""The protocol tools of a profile as the linter needs them: name sets and argument validators."""

from __future__ import annotations

import re
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
                         "title", "default", "examples", "minimum", "maximum",
                         "exclusiveMinimum", "exclusiveMaximum", "minLength", "maxLength",
                         "minItems", "maxItems", "pattern"})


def _is_number(value: Any) -> bool:
    return type(value) is int or type(value) is float


# Bound keywords apply to numbers (not booleans), length keywords to strings or arrays;
# other values pass them, as jsonschema reads them.
_BOUNDS: dict[str, Callable[[Any, Any], bool]] = {
    "minimum": lambda v, bound: v >= bound,
    "maximum": lambda v, bound: v <= bound,
    "exclusiveMinimum": lambda v, bound: v > bound,
    "exclusiveMaximum": lambda v, bound: v < bound,
}
_LENGTHS: dict[str, tuple[type[Any], Callable[[int, int], bool]]] = {
    "minLength": (str, lambda n, limit: n >= limit),
    "maxLength": (str, lambda n, limit: n <= limit),
    "minItems": (list, lambda n, limit: n >= limit),
    "maxItems": (list, lambda n, limit: n <= limit),
}


def _bound_check(passes: Callable[[Any, Any], bool], bound: Any) -> Check:
    return lambda v: not _is_number(v) or passes(v, bound)


def _length_check(kind: type[Any], fits: Callable[[int, int], bool], limit: int) -> Check:
    def check(v: Any) -> bool:
        return type(v) is not kind or fits(len(v), limit)

    return check


def _limit_checks(schema: dict[str, Any]) -> list[Check] | None:
    """Checks of the numeric, length and pattern keywords of ``schema``; None if one of
    them has a value this compiler does not take."""
    checks: list[Check] = []
    for keyword, passes in _BOUNDS.items():
        if keyword in schema:
            bound = schema[keyword]
            if not _is_number(bound):
                return None
            checks.append(_bound_check(passes, bound))
    for keyword, (kind, fits) in _LENGTHS.items():
        if keyword in schema:
            limit = schema[keyword]
            if type(limit) is not int:
                return None
            checks.append(_length_check(kind, fits, limit))
    if "pattern" in schema:
        pattern = schema["pattern"]
        if type(pattern) is not str:
            return None
        try:
            search = re.compile(pattern).search
        except re.error:
            return None
        checks.append(lambda v: type(v) is not str or search(v) is not None)
    return checks


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
    limits = _limit_checks(schema)
    if limits is None:
        return None
    checks += limits
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
    if len(checks) == 2:
        first, second = checks
        return lambda v: first(v) and second(v)
    return lambda v: all(c(v) for c in checks)


@dataclass
class _Schema:
    """One arguments schema: the full validator and, when possible, a compiled fast check."""

    validator: Draft202012Validator
    check: Check | None


@dataclass
class ToolCatalog:
    """Tool names of one profile and their argument validators, each built once.

    A dialect profile also accepts everything profile strict does (TW-PROF-004): its tool
    sets include strict's, and arguments are valid when they fit either profile's schema.
    """

    profile: Profile
    leader: frozenset[str]
    sub_agent: frozenset[str]
    base: frozenset[str]
    removed: frozenset[str]
    forbidden: frozenset[str]
    leader_only: frozenset[str]
    sub_agent_only: frozenset[str]
    protocol: frozenset[str]
    _schemas: dict[str, list[_Schema]] = field(default_factory=dict)

    def _load(self, tool: str) -> list[_Schema]:
        loaded = self._schemas.get(tool)
        if loaded is not None:
            return loaded
        loaded = []
        profiles = [self.profile] if self.profile is Profile.STRICT else [self.profile,
                                                                         Profile.STRICT]
        for profile in profiles:
            if tool in schemas.tool_names(profile.value).protocol_tools:
                validator = schemas.tool_arguments_validator(tool, profile.value)
                loaded.append(_Schema(validator, compile_check(validator.schema)))
        self._schemas[tool] = loaded
        return loaded

    def validator(self, tool: str) -> Draft202012Validator | None:
        """The arguments validator of protocol tool ``tool`` in this profile's own form."""
        loaded = self._load(tool) if tool in self.protocol else []
        return loaded[0].validator if loaded else None

    def argument_errors(self, tool: str, arguments: Any, limit: int = 3) -> list[str]:
        """Up to ``limit`` reasons why ``arguments`` fit no schema of ``tool``; [] if one fits."""
        if tool not in self.protocol:
            return []
        loaded = self._load(tool)
        for schema in loaded:
            if schema.check is not None and schema.check(arguments):
                return []
        if not loaded or any(schema.validator.is_valid(arguments) for schema in loaded):
            return []
        validator = loaded[0].validator
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
        if profile is not Profile.STRICT:
            strict = schemas.tool_names(Profile.STRICT.value)
            leader |= frozenset(strict.leader)
            sub |= frozenset(strict.sub_agent)
        catalog = ToolCatalog(
            profile=profile, leader=leader, sub_agent=sub, base=frozenset(names.base),
            removed=frozenset(names.removed), forbidden=frozenset(names.forbidden),
            leader_only=leader - sub, sub_agent_only=sub - leader, protocol=leader | sub)
        _CATALOGS[profile] = catalog
    return catalog


def ask_other_form(arguments: dict[str, Any], strict: bool) -> tuple[Any, Any, bool]:
    """(chosen id, text, is a notification) of an ask_other_agent call.

    Profile strict reads ``message_id`` and ``content``; an id starting with ``msg_`` makes
    the call a notification (TW-TYPE-010). The astrion form (``question`` and an optional
    ``question_id``) is always a question (TW-PROF-022); a strict-form call keeps its strict
    meaning under astrion too (TW-PROF-004).
    """
    if not strict and "question" in arguments and "content" not in arguments:
        return arguments.get("question_id"), arguments.get("question"), False
    chosen = arguments.get("message_id")
    return chosen, arguments.get("content"), type(chosen) is str and chosen.startswith("msg_")


def answered_id(arguments: dict[str, Any], tool: str, strict: bool) -> Any:
    """The id of the question an answer tool call answers."""
    if tool == "answer_sub_agent_question":
        return arguments.get("question_id")
    if not strict and "question_id" in arguments:
        return arguments.get("question_id")
    return arguments.get("message_id")
