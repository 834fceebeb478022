"""The one registry of lint rules: code, name, severity, requirements, rationale, examples,
and the checks that make a rule's findings from the facts a conversation pass hands out."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, Generic, NamedTuple, Protocol, TypeVar

from teamwire.near_names import closest
from teamwire.validator.findings import Severity

_CODE = re.compile(r"TW[0-9]{3}")
_NAME = re.compile(r"[a-z][a-z0-9]*(?:-[a-z0-9]+)*")

CATEGORIES: dict[str, str] = {
    "TW0": "Input",
    "TW1": "Envelope",
    "TW2": "Placement and direction",
    "TW3": "Ids",
    "TW4": "Tools",
    "TW5": "Flow across conversations",
    "TW6": "Security",
}
"""Rule families by code prefix, in documentation order."""


@dataclass(frozen=True)
class Rule:
    """One lint rule. The code and the name never change once published."""

    code: str
    name: str
    severity: Severity
    summary: str
    """One line: what the rule finds."""
    requirements: tuple[str, ...]
    """Ids of the spec requirements the rule enforces (spec/requirements.json)."""
    rationale: str
    bad: str
    """An input the rule flags (a message, an excerpt of a conversation or a bundle)."""
    good: str
    """The near miss the rule accepts."""
    scope: str = "conversation"
    """``file``, ``conversation`` (checked in one conversation) or ``bundle`` (needs a bundle)."""
    profiles: tuple[str, ...] = field(default=("strict", "astrion"))
    """Profiles under which the rule can fire."""
    default: bool = True
    """Whether the rule is on without a selection that names it (off: too costly to run on
    every lint, selected with ``extend-select``)."""

    @property
    def category(self) -> str:
        """The family the rule belongs to, e.g. ``Envelope``."""
        return CATEGORIES[self.code[:3]]


F = TypeVar("F")
F_contra = TypeVar("F_contra", contravariant=True)


class Report(Protocol[F_contra]):
    """How a check reports its rule: a message about ``fact``, at offset ``at`` of the
    fact's text when the finding has a place in it."""

    def __call__(self, fact: F_contra, message: str, at: int | None = None,
                 below: str = "") -> None:
        """``below`` extends the fact's pointer (a part of a tool call, say)."""

    def later(self, fact: F_contra, message: str, at: int | None = None,
              below: str = "") -> Callable[[], None]:
        """The same report, made when the returned function is called (for a finding the
        checks across conversations may still withdraw)."""


class Trigger(NamedTuple):
    """What a text must have for a check to have anything to say about it: cheap tests
    the conversation pass runs before handing the fact out at all. A check without one is
    handed every fact of its kind."""

    prefixes: tuple[str, ...] = ()
    """The text starts with one of these."""
    suffixes: tuple[str, ...] = ()
    """The text ends with one of these."""
    mark: bool = False
    """The fact's content holds the envelope header mark ('来自 '): an envelope's content,
    the whole text of other facts."""
    content_prefixes: tuple[str, ...] = ()
    """An envelope's content starts with one of these (checks of ``Delivered``, beside
    their ``quiet`` test: a delivery of a head a check is not quiet about is still taken by
    its header line when its content starts with none of these)."""
    calls: tuple[str, ...] = ()
    """For checks of ``ToolCall``: the calls looked into, of ``CALL_KINDS``."""
    tools: tuple[str, ...] = ()
    """For checks of ``ToolCall``: the only tools whose calls (of those kinds) it looks into;
    none named: every tool."""


CALL_KINDS = frozenset({"protocol", "verdict", "repeated", "problem"})
"""Tool calls a check of calls may say it looks into: calls of protocol tools, calls the
catalog gives a verdict on for the calling agent, calls reusing a call id, calls of protocol
tools whose arguments text could not be read cleanly (``ToolCall.problem``). The
conversation pass takes any other call inline unless an enabled check of calls has no
trigger."""


@dataclass(frozen=True)
class Check(Generic[F]):
    """One check of a rule: what it looks at (a fact type) and how it reports."""

    rule: Rule
    fact: type[F]
    run: Callable[[F, Report[F]], None]
    trigger: Trigger | None
    """None: the check may report any fact of its kind."""
    quiet: Callable[..., bool] | None = None
    """For checks of envelopes delivered or returned: whether the check never reports one
    of this type from this sender in this conversation (``quiet(mtype, sender, owner)`` for
    ``Delivered``, ``quiet(mtype, sender, tool, owner)`` for ``Returned``), which lets the
    conversation pass take later such envelopes by their header line alone; for checks of
    ``EnvelopeAttributes``, whether the check never reports an envelope of this type that
    carries no attribute and names no receiver (``quiet(mtype, owner)``); for checks of
    ``ToolResult``, whether the check never reports a successful result (``"success":
    true``) of this tool in this conversation (``quiet(tool, owner)``), which are then not
    handed out at all. None: never."""

    def selected(self, enabled: frozenset[str]) -> bool:
        """Whether the check's rule is among ``enabled`` (codes)."""
        return self.rule.code in enabled


class Registry:
    """Rules by code and by name, and their checks; iteration is in code order."""

    def __init__(self) -> None:
        self._by_code: dict[str, Rule] = {}
        self._by_name: dict[str, Rule] = {}
        self._by_fact: dict[type, list[Check[Any]]] = {}
        """Checks by the fact type they take, each list in code order (kept so as checks
        are added, which happens once, at import)."""
        self._tuples: dict[type, tuple[Check[Any], ...]] = {}

    def add(self, rule: Rule) -> Rule:
        """Register ``rule``; codes and names must be new and well formed."""
        if not _CODE.fullmatch(rule.code) or rule.code[:3] not in CATEGORIES:
            raise ValueError(f"bad rule code {rule.code!r}")
        if not _NAME.fullmatch(rule.name):
            raise ValueError(f"rule name {rule.name!r} is not kebab-case")
        if rule.code in self._by_code or rule.name in self._by_name:
            raise ValueError(f"rule {rule.code} {rule.name} registered twice")
        self._by_code[rule.code] = rule
        self._by_name[rule.name] = rule
        return rule

    def add_check(self, check: Check[Any]) -> None:
        """Register ``check`` of a rule registered before."""
        if self._by_code.get(check.rule.code) is not check.rule:
            raise ValueError(f"check of unregistered rule {check.rule.code}")
        checks = self._by_fact.setdefault(check.fact, [])
        checks.append(check)
        checks.sort(key=_code_of)  # stable: a rule's checks keep the order they were added
        self._tuples.clear()

    def checks(self, fact: type) -> list[Check[Any]]:
        """The checks that take facts of type ``fact``, in code order."""
        return list(self._by_fact.get(fact, ()))

    def checks_of(self, fact: type) -> tuple[Check[Any], ...]:
        """``checks(fact)`` kept until a check is added (for the passes over a file or a
        session, which hand out a fact or two at a time)."""
        found = self._tuples.get(fact)
        if found is None:
            found = self._tuples[fact] = tuple(self._by_fact.get(fact, ()))
        return found

    def get(self, key: str) -> Rule | None:
        """The rule with code or name ``key`` (codes case-insensitive), or None."""
        return self._by_code.get(key.upper()) or self._by_name.get(key)

    def __getitem__(self, code: str) -> Rule:
        return self._by_code[code]

    def __contains__(self, code: object) -> bool:
        return code in self._by_code

    def __iter__(self) -> Iterator[Rule]:
        return iter(sorted(self._by_code.values(), key=lambda r: r.code))

    def __len__(self) -> int:
        return len(self._by_code)

    def default_codes(self) -> list[str]:
        """The codes of the rules on by default, in code order."""
        return sorted(rule.code for rule in self._by_code.values() if rule.default)

    def codes(self) -> list[str]:
        """Every code, in order."""
        return sorted(self._by_code)

    def matching(self, selector: str) -> Iterable[Rule]:
        """Rules a selector names: ``ALL``, a code prefix (``TW1``, ``TW10``) or a rule name."""
        if selector.upper() == "ALL":
            return list(self)
        by_name = self._by_name.get(selector)
        if by_name is not None:
            return [by_name]
        prefix = selector.upper()
        return [r for r in self if r.code.startswith(prefix)]

    def suggest(self, key: str) -> str | None:
        """What a mistyped rule code or name was probably meant to be, as a hint, or None.

        A code is a code one character off (the lowest, if several are); a name is the
        closest name.
        """
        if key[:2].upper() == "TW":
            near = [code for code in sorted(self._by_code) if _one_off(key.upper(), code)]
            return f"did you mean {near[0]!r}?" if near else None
        guess = closest(key.lower(), self._by_name, cutoff=0.75)
        return f"did you mean {guess!r}?" if guess else None


def _code_of(check: Check[Any]) -> str:
    return check.rule.code


def _one_off(typed: str, code: str) -> bool:
    """Whether ``typed`` is ``code`` with one character changed, added or left out."""
    if len(typed) == len(code):
        return sum(a != b for a, b in zip(typed, code, strict=True)) == 1
    short, long = sorted((typed, code), key=len)
    return len(long) - len(short) == 1 and any(
        long[:i] + long[i + 1:] == short for i in range(len(long)))


REGISTRY = Registry()
"""Every rule teamwire knows; the rule modules add to it on import."""


def rule(code: str, name: str, severity: Severity, summary: str, *, requirements: Iterable[str],
         rationale: str, bad: str, good: str, scope: str = "conversation",
         profiles: Iterable[str] = ("strict", "astrion"), default: bool = True) -> Rule:
    """Define and register one rule (used by the modules of ``teamwire.validator.rules``)."""
    return REGISTRY.add(Rule(code=code, name=name, severity=severity, summary=summary,
                             requirements=tuple(requirements), rationale=rationale.strip(),
                             bad=bad.strip("\n"), good=good.strip("\n"), scope=scope,
                             profiles=tuple(profiles), default=default))


def check(rule: Rule, on: type[F], *, prefixes: Iterable[str] = (),
          suffixes: Iterable[str] = (), mark: bool = False,
          content_prefixes: Iterable[str] = (), calls: Iterable[str] = (),
          tools: Iterable[str] = (), always: bool = False,
          quiet: Callable[..., bool] | None = None) -> Callable[
              [Callable[[F, Report[F]], None]], Callable[[F, Report[F]], None]]:
    """Register the decorated function as a check of ``rule`` on facts of type ``on``.

    ``prefixes``, ``suffixes``, ``mark`` and ``content_prefixes`` say what a text needs for
    the check to report it, ``calls`` which kinds of tool calls it looks into and ``tools``,
    if given, of which tools only (see ``Trigger``);
    ``always`` says the check may report any text,
    which turns off the fast paths that skip facts of this kind. One of them must be given. ``quiet`` is as
    for ``Check``. A check reports its one rule: a rule may have several checks (of
    different facts), a check never several rules.
    """
    trigger = Trigger(tuple(prefixes), tuple(suffixes), mark, tuple(content_prefixes),
                      tuple(calls), tuple(tools))
    if always == (trigger != Trigger()):
        raise ValueError(f"check of {rule.code}: give a trigger (prefixes, suffixes, mark, "
                         "content_prefixes, calls) or always")
    if not CALL_KINDS.issuperset(trigger.calls):
        raise ValueError(f"check of {rule.code}: calls must be of {sorted(CALL_KINDS)}")
    if trigger.tools and not trigger.calls:
        raise ValueError(f"check of {rule.code}: tools narrow calls, which it does not give")

    def register(run: Callable[[F, Report[F]], None]) -> Callable[[F, Report[F]], None]:
        REGISTRY.add_check(Check(rule, on, run, None if always else trigger, quiet))
        return run
    return register
