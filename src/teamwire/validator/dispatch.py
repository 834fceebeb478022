"""The dispatcher: hands each fact of a conversation pass to the checks of the enabled rules.

It only calls rules. What a fast path may skip is derived here from the checks' triggers, so
a new check is never skipped by a shortcut that predates it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

from teamwire.validator.facts import FACT_TYPES, Fact
from teamwire.validator.registry import Check, Rule
from teamwire.validator.rules import REGISTRY
from teamwire.validator.scan import has_mark

Emit = Callable[[Rule, str, "int | None", str, "str | None", "int | None"], None]
"""How a conversation pass reports: rule, message, index, pointer tail, text, offset."""


class Gate(NamedTuple):
    """What a fast path must test of a text before it may skip the fact it would make."""

    always: bool
    """Some enabled check may report any text: nothing may be skipped."""
    prefixes: tuple[str, ...]
    """A text starting with one of these must be handed out."""
    suffixes: tuple[str, ...]
    """A text ending with one of these must be handed out."""
    mark: bool
    """A fact whose content holds the header mark must be handed out."""

    def opens(self, text: str, content: str) -> bool:
        """Whether the fact of ``text`` (whose content is ``content``) must be handed out."""
        return self.always or (bool(self.prefixes) and text.startswith(self.prefixes)) \
            or (bool(self.suffixes) and text.endswith(self.suffixes)) \
            or (self.mark and has_mark(content))


class _Reporter:
    """The report of one rule in one conversation pass."""

    __slots__ = ("_emit", "_rule")

    def __init__(self, rule: Rule, emit: Emit) -> None:
        self._rule = rule
        self._emit = emit

    def __call__(self, fact: Fact, message: str, at: int | None = None) -> None:
        self._emit(self._rule, message, fact.index, fact.tail,
                   None if at is None else fact.text, at)


def _gate(checks: list[Check[Any]]) -> Gate:
    prefixes: list[str] = []
    suffixes: list[str] = []
    mark = False
    for check in checks:
        if check.trigger is None:
            return Gate(True, (), (), False)
        prefixes += check.trigger.prefixes
        suffixes += check.trigger.suffixes
        mark = mark or check.trigger.mark
    return Gate(False, tuple(dict.fromkeys(prefixes)), tuple(dict.fromkeys(suffixes)), mark)


Selection = dict[type, tuple[tuple[Check[Any], ...], Gate]]
"""The checks of the enabled rules by the fact type they take, and the gate they make."""


def select(enabled: frozenset[str]) -> Selection:
    """The checks of the rules in ``enabled`` (codes), by fact type, with their gates."""
    selection: Selection = {}
    for fact_type in FACT_TYPES:
        checks = [c for c in REGISTRY.checks(fact_type) if c.rule.code in enabled]
        selection[fact_type] = (tuple(checks), _gate(checks))
    return selection


def all_quiet(checks: tuple[Check[Any], ...], *head: object) -> bool:
    """Whether every one of ``checks`` says it never reports deliveries of ``head``."""
    return all(c.quiet is not None and c.quiet(*head) for c in checks)


def dispatch(fact: Fact, checks: tuple[Check[Any], ...], emit: Emit) -> None:
    """Hand ``fact`` to each of ``checks``, which report through ``emit``."""
    # Reporters are made per fact rather than kept by the pass: one holding the pass's emit
    # would tie the pass into a reference cycle, and with it the messages it remembers.
    for check in checks:
        check.run(fact, _Reporter(check.rule, emit))
