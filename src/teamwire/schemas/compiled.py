"""Tool argument schemas compiled to plain Python predicates, for the common case.

Checking the arguments of every call with a full JSON Schema validator costs more than the
rest of a call's checks together; the schemas of the protocol tools use a small keyword
subset, which compiles to one expression per schema. A differential test holds the compiled
predicates to the full validator's verdicts.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

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
