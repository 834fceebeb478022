"""Tool argument schemas compiled to plain Python predicates, for the common case.

Checking the arguments of every call with a full JSON Schema validator costs more than the
rest of a call's checks together; the schemas of the protocol tools use a small keyword
subset, which compiles to one short function per schema. A differential test holds the
compiled predicates to the full validator's verdicts.
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
    "integer": "type({0}) is int or type({0}) is float and {0}.is_integer()",
    "number": "type({0}) is int or type({0}) is float",
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
_NUMERIC = frozenset({"integer", "number"})
_CONTAINERS = {"object": "dict", "array": "list", "string": "str"}


class _Compiler:
    """Turns a schema into the statements of a function that returns False as soon as a
    value fails it: a flat run of ``if`` tests, which Python compiles at a fraction of the
    cost of one nested expression, and runs with no test made twice."""

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

    def block(self, schema: Any, var: str, indent: str) -> list[str] | None:
        """The statements that return False when the value in ``var`` fails ``schema``
        (none when nothing can fail it); None if the schema is not compilable."""
        if schema is True:
            return []
        if type(schema) is not dict or not set(schema) <= _COMPILABLE:
            return None
        lines: list[str] = []
        # The value's own failing tests, in order: one ``if`` of them all, ahead of its items'
        # and members' (fewer statements are cheaper to compile).
        fails: list[str] = []
        fail_if = fails.append
        kind = schema.get("type")
        numeric = False
        known: str | None = None  # the Python type the value has once its type passed, if one
        if kind is not None:
            kinds = [kind] if type(kind) is str else kind
            if type(kinds) is not list or not kinds or not all(k in _TYPES for k in kinds):
                return None
            if (len(kinds) == 1 and kinds[0] in _CONTAINERS) or kinds == ["boolean"]:
                fail_if(f"type({var}) is not {_CONTAINERS.get(kinds[0], 'bool')}")
            else:
                fail_if("not (" + " or ".join(_TYPES[k].format(var) for k in kinds) + ")")
            numeric = set(kinds) <= _NUMERIC  # a bound then needs no test of the type
            if len(kinds) == 1:
                known = _CONTAINERS.get(kinds[0])

        def guard(container: str) -> str | None:
            # The test that a keyword for ``container`` applies: none when the value is known
            # to be one, None (the keyword is skipped) when it is known to be something else.
            if known is None:
                return f"type({var}) is {container}"
            return "" if known == container else None
        for keyword, operator in _BOUNDS.items():
            if keyword in schema:
                bound = schema[keyword]
                if type(bound) is not int and type(bound) is not float:
                    return None
                is_number = "" if numeric else f"(type({var}) is int or type({var}) is float) and "
                fail_if(f"{is_number}not {var} {operator} {self.constant(bound)}")
        for keyword, (container, operator) in _LENGTHS.items():
            if keyword in schema:
                limit = schema[keyword]
                if type(limit) is not int:
                    return None
                applies = guard(container)
                if applies is not None:
                    fail_if(f"{applies} and not len({var}) {operator} {limit}" if applies
                            else f"not len({var}) {operator} {limit}")
        if "pattern" in schema:
            pattern = schema["pattern"]
            if type(pattern) is not str:
                return None
            try:
                search = re.compile(pattern).search
            except re.error:
                return None
            applies = guard("str")
            if applies is not None:
                found = f"{self.constant(search)}({var}) is None"
                fail_if(f"{applies} and {found}" if applies else found)
        if "enum" in schema:
            options = schema["enum"]
            if type(options) is not list or not all(type(o) in (str, int) for o in options):
                return None
            allowed = self.constant(frozenset((type(o), o) for o in options))
            # JSON Schema compares numbers by value: 1.0 is the enum's 1 (but true is not).
            fail_if(f"not ((type({var}) is str or type({var}) is int) and (type({var}), {var}) "
                    f"in {allowed} or type({var}) is float and {var}.is_integer() "
                    f"and (int, int({var})) in {allowed})")
        if fails:
            test = " or ".join(f"({f})" if " or " in f and len(fails) > 1 else f for f in fails)
            lines += [f"{indent}if {test}:", f"{indent}    return False"]
        if "items" in schema:
            item = self.variable()
            inner = self.block(schema["items"], item, indent + "        ")
            if inner is None:
                return None
            applies = guard("list")
            if inner and applies is not None:
                if applies:
                    lines.append(f"{indent}if {applies}:")
                    loop_indent = indent + "    "
                else:
                    loop_indent = indent
                    inner = [line[4:] for line in inner]
                lines.append(f"{loop_indent}for {item} in {var}:")
                lines += inner
        if "properties" in schema or "required" in schema:
            applies = guard("dict")
            members = self._members(schema, var, indent + "    " if applies else indent)
            if members is None:
                return None
            if members and applies is not None:
                if applies:
                    lines.append(f"{indent}if {applies}:")
                lines += members
        return lines

    def _members(self, schema: dict[str, Any], var: str, indent: str) -> list[str] | None:
        properties = schema.get("properties") or {}
        required = schema.get("required") or []
        if type(properties) is not dict or type(required) is not list \
                or not all(type(name) is str for name in [*properties, *required]):
            return None
        lines: list[str] = []
        if required:
            missing = " or ".join(f"{self.constant(name)} not in {var}" for name in required)
            lines += [f"{indent}if {missing}:", f"{indent}    return False"]
        for name, sub in properties.items():
            value = self.variable()
            inner = self.block(sub, value, indent + "    ")
            if inner is None:
                return None
            if not inner:
                continue
            key = self.constant(name)
            if len(inner) == 2:
                # One test of its own: the member is read where the test first names it.
                test = inner[0].strip()[3:-1]
                test = re.sub(rf"\b{value}\b", f"({value} := {var}[{key}])", test, count=1)
                lines += [f"{indent}if {key} in {var} and ({test}):", f"{indent}    return False"]
            else:
                lines += [f"{indent}if {key} in {var}:", f"{indent}    {value} = {var}[{key}]",
                          *inner]
        return lines


def compile_check(schema: Any) -> Check | None:
    """A fast predicate equivalent to ``schema`` for the keyword subset tool schemas use.

    The schema becomes the source of one Python function, so that a check costs a few
    comparisons and no calls. Returns None when the schema uses anything else; callers
    then keep the full validator. A differential test holds the two to the same verdicts.
    """
    compiler = _Compiler()
    lines = compiler.block(schema, "value", "    ")
    if lines is None:
        return None
    namespace: dict[str, Any] = dict(compiler.constants)
    exec("def check(value):\n" + "\n".join([*lines, "    return True"]) + "\n", namespace)
    check: Check = namespace["check"]
    return check
