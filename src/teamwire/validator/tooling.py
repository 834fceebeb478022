"""The protocol tools of a profile as the linter needs them: name sets and argument validators."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from teamwire import schemas
from teamwire.envelope import Profile

if TYPE_CHECKING:
    from jsonschema import Draft202012Validator

ASK_TOOLS = frozenset({"ask_master", "ask_other_agent", "ask_sub_agent"})
"""Tools whose successful result is an Answer envelope."""

TARGETING_TOOLS = frozenset({"terminate_sub_agent", "send_message_to_sub_agent", "ask_sub_agent",
                             "answer_sub_agent_question", "get_sub_agent_status",
                             "stop_sub_agent"})
"""Leader tools that name one sub-agent by ``agent_id`` (and optional ``role_id``)."""


Check = Callable[[Any], bool]

# What each JSON type test reads as, for a value held in ``{0}``.
_TYPES: dict[str, str] = {
    "object": "type({0}) is dict",
    "array": "type({0}) is list",
    "string": "type({0}) is str",
    "boolean": "type({0}) is bool",
    "null": "{0} is None",
    "integer": "(type({0}) is int or (type({0}) is float and {0}.is_integer()))",
    "number": "(type({0}) is int or type({0}) is float)",
}
_COMPILABLE = frozenset({"type", "properties", "required", "enum", "items", "description",
                         "title", "default", "examples", "minimum", "maximum",
                         "exclusiveMinimum", "exclusiveMaximum", "minLength", "maxLength",
                         "minItems", "maxItems", "pattern"})
# Bound keywords apply to numbers (not booleans), length keywords to strings or arrays;
# other values pass them, as jsonschema reads them.
_BOUNDS = {"minimum": ">=", "maximum": "<=", "exclusiveMinimum": ">", "exclusiveMaximum": "<"}
_LENGTHS = {"minLength": ("str", ">="), "maxLength": ("str", "<="),
            "minItems": ("list", ">="), "maxItems": ("list", "<=")}


class _Compiler:
    """Turns a schema into the source of one Python expression over a variable."""

    def __init__(self) -> None:
        self.constants: dict[str, Any] = {}
        self.names = 0

    def constant(self, value: Any) -> str:
        name = f"_c{len(self.constants)}"
        self.constants[name] = value
        return name

    def variable(self) -> str:
        self.names += 1
        return f"_v{self.names}"

    def expression(self, schema: Any, var: str) -> str | None:
        """The test ``schema`` makes of the value in ``var``; None if not compilable."""
        if schema is True:
            return "True"
        if type(schema) is not dict or not set(schema) <= _COMPILABLE:
            return None
        tests: list[str] = []
        kind = schema.get("type")
        if kind is not None:
            kinds = [kind] if type(kind) is str else kind
            if type(kinds) is not list or not kinds or not all(k in _TYPES for k in kinds):
                return None
            tests.append("(" + " or ".join(_TYPES[k].format(var) for k in kinds) + ")")
        for keyword, operator in _BOUNDS.items():
            if keyword in schema:
                bound = schema[keyword]
                if type(bound) is not int and type(bound) is not float:
                    return None
                tests.append(f"(not (type({var}) is int or type({var}) is float) "
                             f"or {var} {operator} {self.constant(bound)})")
        for keyword, (container, operator) in _LENGTHS.items():
            if keyword in schema:
                limit = schema[keyword]
                if type(limit) is not int:
                    return None
                tests.append(f"(type({var}) is not {container} or len({var}) {operator} {limit})")
        if "pattern" in schema:
            pattern = schema["pattern"]
            if type(pattern) is not str:
                return None
            try:
                search = re.compile(pattern).search
            except re.error:
                return None
            tests.append(f"(type({var}) is not str or {self.constant(search)}({var}) "
                         "is not None)")
        if "enum" in schema:
            options = schema["enum"]
            if type(options) is not list or not all(type(o) in (str, int) for o in options):
                return None
            allowed = self.constant(frozenset((type(o), o) for o in options))
            # JSON Schema compares numbers by value: 1.0 is the enum's 1 (but true is not).
            tests.append(f"(((type({var}) is str or type({var}) is int) "
                         f"and (type({var}), {var}) in {allowed}) or (type({var}) is float "
                         f"and {var}.is_integer() and (int, int({var})) in {allowed}))")
        if "items" in schema:
            item = self.variable()
            test = self.expression(schema["items"], item)
            if test is None:
                return None
            tests.append(f"(type({var}) is not list or all({test} for {item} in {var}))")
        if "properties" in schema or "required" in schema:
            members = self._members(schema, var)
            if members is None:
                return None
            tests.append(members)
        return "(" + " and ".join(tests) + ")" if tests else "True"

    def _members(self, schema: dict[str, Any], var: str) -> str | None:
        properties = schema.get("properties") or {}
        required = schema.get("required") or []
        if type(properties) is not dict or type(required) is not list \
                or not all(type(name) is str for name in [*properties, *required]):
            return None
        tests = [f"{self.constant(name)} in {var}" for name in required]
        for name, sub in properties.items():
            key = self.constant(name)
            value = self.variable()
            test = self.expression(sub, value)
            if test is None:
                return None
            if test != "True":
                tests.append(f"({key} not in {var} or (({value} := {var}[{key}]) is {value} "
                             f"and {test}))")
        if not tests:
            return "True"
        return f"(type({var}) is not dict or (" + " and ".join(tests) + "))"


def compile_check(schema: Any) -> Check | None:
    """A fast predicate equivalent to ``schema`` for the keyword subset tool schemas use.

    The schema becomes the source of one Python function, so that a check costs a few
    comparisons and no calls. Returns None when the schema uses anything else; callers
    then keep the full validator. A differential test holds the two to the same verdicts.
    """
    compiler = _Compiler()
    test = compiler.expression(schema, "value")
    if test is None:
        return None
    namespace: dict[str, Any] = dict(compiler.constants)
    exec(f"def check(value):\n    return bool({test})\n", namespace)
    check: Check = namespace["check"]
    return check


def _anything(_value: Any) -> bool:
    return True


def _nothing(_value: Any) -> bool:
    return False


@dataclass
class _Schema:
    """One arguments schema: a compiled fast check when possible, and the full validator,
    built the first time a check needs it (most runs never do)."""

    tool: str
    profile: str
    check: Check | None

    @property
    def validator(self) -> Draft202012Validator:
        """The full validator (the schema registry builds it once)."""
        return schemas.tool_arguments_validator(self.tool, self.profile)


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
    _passes: dict[str, Check] = field(default_factory=dict)
    _texts: dict[str, frozenset[str]] = field(default_factory=dict)

    def _load(self, tool: str) -> list[_Schema]:
        loaded = self._schemas.get(tool)
        if loaded is not None:
            return loaded
        loaded = []
        profiles = [self.profile] if self.profile is Profile.STRICT else [self.profile,
                                                                         Profile.STRICT]
        for profile in profiles:
            if tool in schemas.tool_names(profile.value).protocol_tools:
                schema = schemas.tool_arguments_schema(tool, profile.value)
                loaded.append(_Schema(tool, profile.value, compile_check(schema)))
        self._schemas[tool] = loaded
        return loaded

    def pass_check(self, tool: str) -> Check:
        """A test passing arguments some compiled schema of ``tool`` accepts (and anything
        for a tool without schemas); what it fails, the full validators judge."""
        passes = self._passes.get(tool)
        if passes is None:
            passes = self._passes[tool] = self._pass_check(tool)
        return passes

    def _pass_check(self, tool: str) -> Check:
        if tool not in self.protocol:
            return _anything
        loaded = self._load(tool)
        if not loaded:
            return _anything
        checks = [schema.check for schema in loaded if schema.check is not None]
        if not checks:
            return _nothing
        if len(checks) == 1:
            return checks[0]
        return lambda v: any(check(v) for check in checks)

    def text_parameters(self, tool: str) -> frozenset[str]:
        """The parameters of ``tool`` that must not be blank (TW-TOOL-024): those of its
        schemas in this profile named in ``TEXT_PARAMETERS``; an argument the tool does not
        define is ignored (TW-TOOL-025), blank or not."""
        found = self._texts.get(tool)
        if found is None:
            names: set[str] = set()
            if tool in self.protocol:
                for profile in {s.profile for s in self._load(tool)}:
                    schema = schemas.tool_arguments_schema(tool, profile)
                    names.update(schema.get("properties", {}))
            found = self._texts[tool] = TEXT_PARAMETERS.intersection(names)
        return found

    def validator(self, tool: str) -> Draft202012Validator | None:
        """The arguments validator of protocol tool ``tool`` in this profile's own form."""
        loaded = self._load(tool) if tool in self.protocol else []
        return loaded[0].validator if loaded else None

    def argument_errors(self, tool: str, arguments: Any, limit: int = 3) -> list[str]:
        """Up to ``limit`` reasons why ``arguments`` fit no schema of ``tool``; [] if one fits."""
        if self.pass_check(tool)(arguments):
            return []
        loaded = self._load(tool)
        if not loaded or any(schema.validator.is_valid(arguments) for schema in loaded):
            return []
        validator = loaded[0].validator
        problems: list[str] = []
        for error in sorted(validator.iter_errors(arguments), key=lambda e: list(e.path)):
            where = "/".join(str(p) for p in error.absolute_path)
            message = schemas.json_message(error)
            problems.append(f"{where}: {message}" if where else message)
            if len(problems) == limit:
                break
        return problems


TEXT_PARAMETERS = frozenset({"task", "message", "question", "content", "answer", "description",
                             "prompt", "body_prompt"})
"""Text parameters of the protocol tools, in either profile, that must not be blank."""

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
