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
    opens: Callable[[str, str], bool]
    """Whether the fact of a text (and its content) must be handed out: the tests above."""


def _opener(always: bool, prefixes: tuple[str, ...], suffixes: tuple[str, ...],
            mark: bool) -> Callable[[str, str], bool]:
    # A closure over the gate's own tests: the slow paths call it for every fact they meet.
    if always:
        return lambda text, content: True
    starts, ends = prefixes or None, suffixes or None

    def opens(text: str, content: str) -> bool:
        return (starts is not None and text.startswith(starts)) \
            or (ends is not None and text.endswith(ends)) or (mark and has_mark(content))
    return opens


class _Reporter:
    """The report of the check being run: reports its rule through the pass's emit."""

    __slots__ = ("_emit", "rule")

    def __init__(self, emit: Emit) -> None:
        self._emit = emit
        self.rule: Rule | None = None

    def __call__(self, fact: Fact, message: str, at: int | None = None) -> None:
        assert self.rule is not None
        self._emit(self.rule, message, fact.index, fact.tail,
                   None if at is None else fact.text, at)


def _gate(checks: list[Check[Any]]) -> Gate:
    prefixes: list[str] = []
    suffixes: list[str] = []
    mark = False
    for check in checks:
        if check.trigger is None:
            return Gate(True, (), (), False, _opener(True, (), (), False))
        prefixes += check.trigger.prefixes
        suffixes += check.trigger.suffixes
        mark = mark or check.trigger.mark
    starts, ends = tuple(dict.fromkeys(prefixes)), tuple(dict.fromkeys(suffixes))
    return Gate(False, starts, ends, mark, _opener(False, starts, ends, mark))


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
    # One reporter per fact, rather than one kept by the pass: one holding the pass's emit
    # would tie the pass into a reference cycle, and with it the messages it remembers. A
    # check reports only while it runs, so the reporter names the rule of the one running.
    report = _Reporter(emit)
    for check in checks:
        report.rule = check.rule
        check.run(fact, report)
