"""Tool-call arguments, read and judged one way for the router and the linter.

The router fails a call with ``invalid-arguments`` exactly when the linter reports its
arguments, because both ask this module. It reads the ``arguments`` text of a call
(TW-TOOL-023: JSON, an object, empty text read as ``{}``; TW-TOOL-038: no member named
twice; TW-TOOL-039: at most 64 levels deep; every string valid Unicode) and then judges the
object against the tool's schemas and what a JSON Schema cannot say the way the
specification means it: an integer is a JSON number written without fraction or exponent
(``1.0`` and ``1e0`` are not), and a text parameter holds a character other than white space
(TW-TOOL-024).

A problem is located: the JSON pointer of the value it concerns (inside the arguments
object) and, for problems of the text itself, the offset in the text where it was found.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import Enum
from typing import TYPE_CHECKING, Any

import orjson

from teamwire import schemas
from teamwire.json_members import (
    ARGUMENTS_DEPTH_LIMIT,
    depth,
    json_type,
    member_count,
    repeated_member,
)
from teamwire.json_text import json_pointer
from teamwire.schemas.compiled import Check, compile_check
from teamwire.schemas.errors import json_message

if TYPE_CHECKING:
    from jsonschema import Draft202012Validator

TEXT_PARAMETERS = frozenset({"task", "message", "question", "content", "answer", "description",
                             "prompt", "body_prompt"})
"""Parameters that must hold a character other than white space wherever a tool has them
(TW-TOOL-024; ``body_prompt`` is the prompt of profile astrion, TW-PROF-020)."""

_CONSTANT = re.compile(r"-?(?:NaN|Infinity)")


class ProblemKind(str, Enum):
    """What is wrong with a call's arguments."""

    NOT_TEXT = "not-text"
    """The arguments are not a string at all."""
    NOT_JSON = "not-json"
    NOT_OBJECT = "not-object"
    REPEATED_MEMBER = "repeated-member"
    TOO_DEEP = "too-deep"
    SCHEMA = "schema"
    """The object does not fit the tool's schema (a missing or mistyped parameter)."""
    NOT_INTEGER = "not-integer"
    BLANK = "blank"


@dataclass(frozen=True)
class ArgumentProblem:
    """One thing wrong with a call's arguments.

    ``message`` is a sentence for the model that made the call; ``detail`` is the reason
    alone (the decoder's, the schema's, the repeated name), for callers that word it their
    own way. ``pointer`` locates the value inside the arguments (``""`` for all of them);
    ``offset`` is where in the arguments text the problem was found, when it is one of the
    text's."""

    kind: ProblemKind
    message: str
    detail: str = ""
    pointer: str = ""
    offset: int | None = None


@dataclass(frozen=True)
class ArgumentReading:
    """The arguments text of a call, read: the object, or the problem that stops reading.

    Arguments nested too deep are still returned with their problem, so that a linter can
    go on checking what they say."""

    arguments: dict[str, Any] | None
    problem: ArgumentProblem | None = None


def _not_json(text: str, exc: orjson.JSONDecodeError) -> ArgumentProblem:
    # The decoder stops at the constant, or just after its sign.
    constant = _CONSTANT.match(text, exc.pos - 1) if text[exc.pos - 1:exc.pos] == "-" \
        else _CONSTANT.match(text, exc.pos)
    detail = f"{constant.group()} is not a JSON value" if constant else exc.msg
    return ArgumentProblem(ProblemKind.NOT_JSON,
                           f"arguments are not valid JSON: {detail}: line {exc.lineno} "
                           f"column {exc.colno} (char {exc.pos})", detail, offset=exc.pos)


def read_arguments(text: object) -> ArgumentReading:
    """Read the ``arguments`` text of a tool call (TW-TOOL-023, -038, -039).

    ``NaN`` and ``Infinity`` are not JSON, nor is a string holding a lone surrogate or a
    number beyond a double's range; text that is empty or white space reads as ``{}``. An
    integer beyond 2^64 reads as a number that is no integer: TW-TOOL-040 bounds integer
    arguments to ±(2^53-1) anyway.
    """
    if not isinstance(text, str):
        return ArgumentReading(None, ArgumentProblem(
            ProblemKind.NOT_TEXT, "arguments must be a JSON text", json_type(text)))
    if not text.strip():
        return ArgumentReading({})
    try:
        parsed = orjson.loads(text)
    except orjson.JSONDecodeError as exc:
        return ArgumentReading(None, _not_json(text, exc))
    if type(parsed) is not dict:
        return ArgumentReading(None, ArgumentProblem(
            ProblemKind.NOT_OBJECT, "arguments must be a JSON object", json_type(parsed)))
    # Each member has one colon outside strings: as many colons as members means no name
    # was dropped as a repeat, which most texts show at once without a scan.
    if text.count(":") != member_count(parsed):
        found = repeated_member(text)
        if found is not None:
            name, offset = found
            return ArgumentReading(None, ArgumentProblem(
                ProblemKind.REPEATED_MEMBER, f"arguments name {json.dumps(name)} twice in one "
                "object", name, offset=offset))
    if depth(parsed) > ARGUMENTS_DEPTH_LIMIT:
        return ArgumentReading(parsed, ArgumentProblem(
            ProblemKind.TOO_DEEP, f"arguments nest more than {ARGUMENTS_DEPTH_LIMIT} levels deep",
            str(ARGUMENTS_DEPTH_LIMIT)))
    return ArgumentReading(parsed)


I_JSON_MAX = 2**53 - 1
"""The largest integer every I-JSON reader holds exactly (RFC 7493, TW-TOOL-040)."""


def is_integer(value: Any) -> bool:
    """Whether a decoded JSON value was written as an integer (no fraction, no exponent)
    within I-JSON's exact range.

    ``bool`` is a subclass of ``int`` and ``1.0 == 1``: neither is a JSON integer."""
    return type(value) is int and -I_JSON_MAX <= value <= I_JSON_MAX


@dataclass
class _ToolRules:
    """What the checker knows of one tool: its schemas (one per profile that defines the
    tool), compiled where they can be, and the parameters it holds to being integers and
    non-blank texts. The full validators are built only when a compiled check fails."""

    tool: str
    profiles: tuple[str, ...]
    checks: list[Check | None]
    integers: tuple[tuple[str, bool], ...]
    """(parameter, is an array of integers)."""
    texts: frozenset[str]
    parameters: tuple[frozenset[str], ...] = ()
    """The parameters each schema defines, in the order of ``profiles``."""

    def closest(self, arguments: Any) -> Draft202012Validator:
        """The validator of the schema that defines the most of ``arguments``' names (the
        first on a tie), so that its problems speak of the form the call is written in."""
        names = set(arguments) if type(arguments) is dict else set()
        best = max(range(len(self.profiles)),
                   key=lambda i: (len(names & self.parameters[i]), -i)) if names else 0
        return self.validators[best]

    @property
    def validators(self) -> list[Draft202012Validator]:
        """The full validator of each schema (the schema registry builds each once)."""
        return [schemas.tool_arguments_validator(self.tool, profile) for profile in self.profiles]


@dataclass
class ArgumentChecker:
    """The argument rules of the protocol tools of one or more profiles.

    With more than one profile (a dialect beside strict, TW-PROF-004), arguments fit when
    they fit any profile's schema. A tool without a schema (a base tool, or one no profile
    knows) has only the rules of the text itself. What a tool's rules are is worked out once
    per checker, on first use.
    """

    profiles: tuple[str, ...] = ("strict",)
    shared: bool = False
    """Take the compiled schemas the schema registry keeps for every checker
    (``schemas.tool_arguments_check``) rather than compiling them for this one: a linter made
    per call then does not compile them per call."""
    _tools: dict[str, _ToolRules] = field(default_factory=dict)
    _tests: dict[str, Callable[[Any], bool]] = field(default_factory=dict)

    def rules(self, tool: str) -> _ToolRules:
        found = self._tools.get(tool)
        if found is None:
            found = self._tools[tool] = self._load(tool)
        return found

    def _load(self, tool: str) -> _ToolRules:
        found: list[tuple[str, Any]] = [
            (profile, schemas.tool_arguments_schema(tool, profile)) for profile in self.profiles
            if tool in schemas.tool_names(profile).protocol_tools]
        integers: dict[str, bool] = {}
        texts: set[str] = set()
        for _profile, schema in found:
            for name, spec in schema.get("properties", {}).items():
                kind = spec.get("type")
                if kind == "integer":
                    integers.setdefault(name, False)
                elif kind == "array" and spec.get("items", {}).get("type") == "integer":
                    integers.setdefault(name, True)
                if name in TEXT_PARAMETERS:
                    texts.add(name)
        compiled = [schemas.tool_arguments_check(tool, profile) for profile, _ in found] \
            if self.shared else [compile_check(schema) for _, schema in found]
        return _ToolRules(tool, tuple(profile for profile, _ in found), compiled,
                          tuple(integers.items()), frozenset(texts),
                          tuple(frozenset(schema.get("properties", {})) for _, schema in found))

    def has_schema(self, tool: str) -> bool:
        """Whether any of the profiles defines the arguments of ``tool``."""
        return bool(self.rules(tool).profiles)

    def text_parameters(self, tool: str) -> frozenset[str]:
        """The parameters of ``tool`` that must not be blank (TW-TOOL-024); an argument the
        tool does not define is ignored (TW-TOOL-025), blank or not."""
        return self.rules(tool).texts

    def fits_schema(self, tool: str, arguments: Any) -> bool:
        """Whether ``arguments`` fit a schema of ``tool`` (True for a tool without one)."""
        return _fits(self.rules(tool), arguments)

    def passes(self, tool: str, arguments: Any) -> bool:
        """Whether the object ``arguments`` has no problem at all: the cheap verdict that
        ``problems`` returns ``[]``."""
        rules = self.rules(tool)
        if not _fits(rules, arguments):
            return False
        if type(arguments) is not dict:
            return True
        for name, is_array in rules.integers:
            if name in arguments and not _integers(arguments[name], is_array):
                return False
        for name in rules.texts:
            text = arguments.get(name)
            if type(text) is str and (not text or text.isspace()):
                return False
        return True

    def pass_test(self, tool: str) -> Callable[[Any], bool]:
        """``passes`` for ``tool`` as one function, built once: the verdict the linter asks
        of every call, at the cost of one call and the compiled schema's."""
        test = self._tests.get(tool)
        if test is None:
            test = self._tests[tool] = _pass_test(self, tool)
        return test

    def problems(self, tool: str, arguments: Any, limit: int = 3) -> list[ArgumentProblem]:
        """What is wrong with the object ``arguments`` of a call of ``tool``, schema problems
        first (in order of where they are), at most ``limit`` of them; ``[]`` when nothing is.

        A text that is empty and so already fails its schema's ``minLength`` is not also
        reported as blank: one problem per text."""
        if self.passes(tool, arguments):
            return []
        rules = self.rules(tool)
        found: list[ArgumentProblem] = []
        if not _fits(rules, arguments):
            errors = sorted(rules.closest(arguments).iter_errors(arguments),
                            key=lambda e: list(e.absolute_path))
            for error in errors[:limit]:
                parts = list(error.absolute_path)
                where = "/".join(str(p) for p in parts)
                detail = json_message(error)
                found.append(ArgumentProblem(
                    ProblemKind.SCHEMA, f"{where or 'arguments'}: {detail}", detail,
                    json_pointer(parts)))
        if type(arguments) is dict:
            for name, is_array in rules.integers:
                if name in arguments and not _integers(arguments[name], is_array):
                    shown = json.dumps(arguments[name])[:40]
                    detail = f"{shown} is not an integer (a JSON number without fraction or " \
                             f"exponent, at most {I_JSON_MAX} in size)"
                    found.append(ArgumentProblem(ProblemKind.NOT_INTEGER, f"{name}: {detail}",
                                                 detail, json_pointer([name])))
            flagged = {p.pointer for p in found}
            for name in sorted(rules.texts.intersection(arguments)):
                text = arguments[name]
                pointer = json_pointer([name])
                if type(text) is str and (not text or text.isspace()) and pointer not in flagged:
                    found.append(ArgumentProblem(ProblemKind.BLANK, f"{name} must not be empty",
                                                 "blank", pointer))
        return found[:limit]

    def check(self, tool: str, text: object, limit: int = 3) -> tuple[dict[str, Any] | None,
                                                                        list[ArgumentProblem]]:
        """Read and judge the arguments text of a call: the object (None when it could not
        be read) and every problem, the reading's first."""
        reading = read_arguments(text)
        if reading.problem is not None:
            return reading.arguments, [reading.problem]
        assert reading.arguments is not None
        return reading.arguments, self.problems(tool, reading.arguments, limit)


def _fits(rules: _ToolRules, arguments: Any) -> bool:
    if not rules.profiles:
        return True
    if any(check is not None and check(arguments) for check in rules.checks):
        return True
    # The compiled checks only save time: what they refuse, the validators judge.
    return any(validator.is_valid(arguments) for validator in rules.validators)


def _pass_test(checker: ArgumentChecker, tool: str) -> Callable[[Any], bool]:
    rules = checker.rules(tool)
    if not rules.profiles:
        return _anything  # no schema: no integer or text parameter either
    checks = tuple(check for check in rules.checks if check is not None)
    integers, texts, passes = rules.integers, tuple(sorted(rules.texts)), checker.passes

    def test(arguments: Any) -> bool:
        for check in checks:
            if check(arguments):
                break
        else:
            return passes(tool, arguments)  # the validators judge what no compiled schema takes
        if type(arguments) is not dict:
            return True
        for name, is_array in integers:
            if name in arguments:
                value = arguments[name]
                if is_array or type(value) is not int:
                    if not _integers(value, is_array):
                        return False
                elif not -I_JSON_MAX <= value <= I_JSON_MAX:
                    return False
        for name in texts:
            text = arguments.get(name)
            if type(text) is str and (not text or text.isspace()):
                return False
        return True
    return test


def _anything(_arguments: Any) -> bool:
    return True


def _integers(value: Any, is_array: bool) -> bool:
    if is_array:
        return type(value) is not list or all(is_integer(item) for item in value)
    return is_integer(value)
