"""The dispatcher: hands each fact of a conversation pass to the checks of the enabled rules.

It only calls rules. A selection (the checks of one set of enabled rules) makes, once, one
function per fact type that calls those checks in code order (``hand_out``); a pass hands its
facts to them with one reporter of its own (``Reporter``). What a fast path may skip is
derived here from the checks' triggers, so a new check is never skipped by a shortcut that
predates it.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from functools import partial
from typing import Any, NamedTuple, Protocol

from teamwire.validator.facts import (
    FACT_TYPES,
    AssistantText,
    Delivered,
    EnvelopeText,
    Fact,
    Returned,
    ToolCall,
    ToolText,
    UserText,
)
from teamwire.validator.registry import Check, Rule
from teamwire.validator.rules import REGISTRY
from teamwire.validator.scan import HEADER_MARK, has_mark

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


class Emits(Protocol):
    """What a pass reports through: its ``emit``."""

    def emit(self, rule: Rule, message: str, index: int | None, tail: str = "",
             text: str | None = None, offset: int | None = None) -> None:
        """Report ``rule`` at message ``index`` (see ``Emit``)."""


class Reporter:
    """The report of the check being run: its rule's findings go to ``emit``.

    One reporter serves many checks and facts: whoever hands a fact out sets ``rule`` to
    the rule of each check before it runs (``hand_out``), and ``emit`` to where that fact's
    findings go, or gives the ``owner`` (a conversation pass) whose ``emit`` they go to.
    The owner is held weakly: a pass holds its reporter, and a strong reference back would
    tie the pass into a reference cycle, and with it the messages it remembers. ``count``
    counts the reports made, enabled rules or not."""

    __slots__ = ("_emit", "_owner", "count", "rule")

    def __init__(self, emit: Emit | None = None, owner: Emits | None = None) -> None:
        self._emit = emit
        self._owner = None if owner is None else weakref.ref(owner)
        self.rule: Rule | None = None
        self.count = 0

    @property
    def emit(self) -> Emit:
        """Where the findings go now."""
        if self._owner is not None:
            owner = self._owner()
            assert owner is not None  # a pass reports while it runs
            return owner.emit
        assert self._emit is not None
        return self._emit

    @emit.setter
    def emit(self, emit: Emit) -> None:
        self._emit = emit

    def __call__(self, fact: Fact, message: str, at: int | None = None,
                 below: str = "") -> None:
        assert self.rule is not None  # set while a check runs
        self.count += 1
        self.emit(self.rule, message, fact.index, fact.tail + below,
                  None if at is None else fact.text, at)

    def later(self, fact: Fact, message: str, at: int | None = None,
              below: str = "") -> Callable[[], None]:
        assert self.rule is not None
        self.count += 1
        return partial(self.emit, self.rule, message, fact.index, fact.tail + below,
                       None if at is None else fact.text, at)


Hand = Callable[[Any, Reporter], None]
"""Hands one fact to the checks it was made for, which report through the pass's reporter."""


def hand_out(checks: tuple[Check[Any], ...]) -> Hand | None:
    """One function that hands a fact to each of ``checks`` in order, telling the reporter
    each one's rule before it runs (as ``dispatch`` does, without a reporter made per fact or the
    checks' fields read per fact); None when there are none. Made once per selection."""
    if not checks:
        return None
    pairs = tuple((c.rule, c.run) for c in checks)
    # The common short lists unrolled: a loop costs more than the calls it makes.
    if len(pairs) == 1:
        ((rule, run),) = pairs

        def one(fact: Any, report: Reporter) -> None:
            report.rule = rule
            run(fact, report)
        return one
    if len(pairs) == 2:
        ((rule, run), (rule2, run2)) = pairs

        def two(fact: Any, report: Reporter) -> None:
            report.rule = rule
            run(fact, report)
            report.rule = rule2
            run2(fact, report)
        return two

    def every(fact: Any, report: Reporter) -> None:
        for report.rule, each in pairs:
            each(fact, report)
    return every


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


class FastPath(NamedTuple):
    """The gates as the conversation pass's inline fast paths read them, derived once."""

    every_text: bool
    """An assistant text always goes to its checks."""
    text_ends: bool
    """Whether an assistant text needs more than its start and the mark tested."""
    firsts: frozenset[str]
    """First characters of the assistant-text prefixes (tested before the prefixes)."""
    prefixes: tuple[str, ...]
    suffixes: tuple[str, ...]
    on_mark: bool
    every_envelope: bool
    env_prefixes: tuple[str, ...]
    env_suffixes: tuple[str, ...]
    env_mark: bool
    head_ends: bool
    """Whether an envelope taken by a known header line needs its start or end tested."""
    head_prefixes: tuple[str, ...]
    head_suffixes: tuple[str, ...]
    every_output: bool
    out_ends: bool
    """Whether a tool output needs its start or end tested."""
    out_prefixes: tuple[str, ...]
    out_suffixes: tuple[str, ...]
    out_mark: bool
    every_call: bool
    """Every tool call goes to the checks of calls (one of them has no trigger), not only
    those of the kinds their triggers name."""


def _every_call(checks: tuple[Check[Any], ...]) -> bool:
    return any(c.trigger is None for c in checks)


def _fast_path(assistant: Gate, envelope: Gate, output: Gate, every_call: bool) -> FastPath:
    firsts = frozenset(p[:1] for p in assistant.prefixes)
    # A header line seen before starts the text and its closing tags end it, so only
    # triggers that can match such a start or end can open a delivery taken by it.
    head_prefixes = tuple(p for p in envelope.prefixes
                          if p.startswith(HEADER_MARK) or HEADER_MARK.startswith(p))
    head_suffixes = tuple(s for s in envelope.suffixes if s.endswith(">"))
    return FastPath(
        assistant.always or "" in firsts,
        assistant.always or "" in firsts or bool(assistant.suffixes), firsts, assistant.prefixes,
        assistant.suffixes,
        assistant.mark, envelope.always, envelope.prefixes, envelope.suffixes, envelope.mark,
        envelope.always or bool(head_prefixes) or bool(head_suffixes), head_prefixes,
        head_suffixes, output.always,
        output.always or bool(output.prefixes) or bool(output.suffixes), output.prefixes,
        output.suffixes, output.mark, every_call)


class Selection:
    """The checks of the enabled rules by the fact type they take, the gates they make, and
    every registered check of the envelope facts whose quiet heads the memo shares."""

    __slots__ = ("_calls", "bound", "checks", "every", "fast", "gates", "hands",
                 "named_tools")

    def __init__(self, enabled: frozenset[str]) -> None:
        self.checks: dict[type, tuple[Check[Any], ...]] = {}
        self.gates: dict[type, Gate] = {}
        self.every: dict[type, tuple[Check[Any], ...]] = {}
        self.hands: dict[type, Hand | None] = {}
        """The ``hand_out`` of each fact type's checks (None: no enabled check takes it)."""
        for fact_type in FACT_TYPES:
            every = REGISTRY.checks(fact_type)
            checks = [c for c in every if c.selected(enabled)]
            self.checks[fact_type] = tuple(checks)
            self.gates[fact_type] = _gate(checks)
            self.every[fact_type] = tuple(every)
            self.hands[fact_type] = hand_out(self.checks[fact_type])
        self.named_tools = frozenset(tool for c in self.checks[ToolCall] if c.trigger
                                     for tool in c.trigger.tools)
        """The tools some enabled check of calls names (``Trigger.tools``)."""
        self._calls: dict[tuple[str | None, bool, bool, bool, bool],
                          tuple[tuple[Check[Any], ...], Hand | None]] = {}
        self.fast = _fast_path(self.gates[AssistantText], self.gates[EnvelopeText],
                               self.gates[ToolText], _every_call(self.checks[ToolCall]))
        on, gates = self.hands, self.gates
        envelope_opens = gates[EnvelopeText].opens if on[EnvelopeText] else None
        self.bound = (on[UserText], gates[UserText], on[AssistantText], gates[AssistantText],
                      on[ToolText], gates[ToolText], on[EnvelopeText], gates[EnvelopeText],
                      envelope_opens, on[Delivered], on[Returned], self.every[Delivered],
                      self.every[Returned])
        """What a conversation pass takes of the selection, in the order it binds it (the
        hand-outs of its texts and envelopes, their gates, every check of delivered and
        returned envelopes)."""


    def calls(self, tool: str, protocol: bool, verdict: bool, repeated: bool,
              problem: bool) -> tuple[Check[Any], ...]:
        """The checks of calls that look into a call of ``tool`` of these kinds (a protocol
        tool, with a verdict, a repeated id, arguments read with a problem), selected once
        per kind and per tool a trigger names."""
        return self._of_calls((tool if tool in self.named_tools else None, protocol, verdict,
                               repeated, problem))[0]

    def call_hand(self, tool: str, protocol: bool, verdict: bool, repeated: bool,
                  problem: bool) -> Hand | None:
        """The ``hand_out`` of ``calls(tool, ...)`` (None: no check looks into such a call),
        made once per kind and per tool a trigger names."""
        key = (tool if tool in self.named_tools else None, protocol, verdict, repeated, problem)
        found = self._calls.get(key)
        if found is None:
            found = self._of_calls(key)
        return found[1]

    def _of_calls(self, key: tuple[str | None, bool, bool, bool, bool]) -> tuple[
            tuple[Check[Any], ...], Hand | None]:
        found = self._calls.get(key)
        if found is None:
            checks = _call_checks(self.checks[ToolCall], *key)
            found = self._calls[key] = (checks, hand_out(checks))
        return found


def _call_checks(checks: tuple[Check[Any], ...], tool: str | None, protocol: bool,
                 verdict: bool, repeated: bool, problem: bool) -> tuple[Check[Any], ...]:
    kinds = {kind for kind, on in (("protocol", protocol), ("verdict", verdict),
                                   ("repeated", repeated), ("problem", problem)) if on}
    return tuple(c for c in checks if c.trigger is None or (
        kinds.intersection(c.trigger.calls)
        and (not c.trigger.tools or tool in c.trigger.tools)))


def select(enabled: frozenset[str]) -> Selection:
    """The checks of the rules in ``enabled`` (codes), by fact type, with their gates."""
    return Selection(enabled)


def all_quiet(checks: tuple[Check[Any], ...], *head: object) -> bool:
    """Whether every one of ``checks`` says it never reports deliveries of ``head``."""
    return all(c.quiet is not None and c.quiet(*head) for c in checks)


def quiet_unless(checks: tuple[Check[Any], ...], *head: object) -> tuple[str, ...] | None:
    """What an envelope's content must start with for one of ``checks`` to report a delivery
    of ``head``: () when every check is quiet about it, None when some check may report any
    such delivery. A check is quiet by its ``quiet`` test, or else reports only contents
    starting with its trigger's ``content_prefixes``."""
    prefixes: list[str] = []
    for c in checks:
        if c.quiet is not None and c.quiet(*head):
            continue
        trigger = c.trigger
        if trigger is None or not trigger.content_prefixes or trigger.prefixes \
                or trigger.suffixes or trigger.mark:
            return None
        prefixes += trigger.content_prefixes
    return tuple(dict.fromkeys(prefixes))


def dispatch(fact: Fact, checks: tuple[Check[Any], ...], emit: Emit) -> None:
    """Hand ``fact`` to each of ``checks``, which report through ``emit``."""
    reported(fact, checks, emit)


def reported(fact: Fact, checks: tuple[Check[Any], ...], emit: Emit) -> bool:
    """Hand ``fact`` to each of ``checks`` as ``dispatch`` does; whether any reported it.

    Given every registered check of a kind, on or off (``emit`` drops the findings of rules
    that are off), it tells whether the fact is fine whatever a file selects, which is what
    the memo may share.
    """
    report = Reporter(emit)
    for check in checks:
        report.rule = check.rule
        check.run(fact, report)
    return report.count > 0
