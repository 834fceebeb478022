"""What conversation passes learn once and reuse: the memo one linter owns.

Most envelopes of a session repeat a few heads (label, tag, sender) and header lines. A head
found to need no check but its id, or to make no finding at all where it is delivered, is
remembered here, so that later conversations of the same run take it with string tests. The
fast paths that read this memo are kept equal to the full checks by the differential tests
(tests/validator/test_fast_paths.py); a memo holds no finding, only what the full checks
found nothing to report about.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from teamwire.envelope import ASTRION_COMPLETION_LABEL, MessageType, Profile
from teamwire.validator.dispatch import Selection, select
from teamwire.validator.facts import Owner
from teamwire.validator.tooling import ToolCatalog, Verdict, tool_catalog

IdTest = Callable[[str], object]
"""A test that an id needs no closer look: a match, or None when it does."""
Plan = tuple[MessageType, IdTest]
"""What is left to check of an envelope whose label, tag and sender were found fine."""
QuietPlan = tuple[MessageType, IdTest, "list[Any] | None", bool, tuple[str, ...]]
"""A plan for a head no check reports where it is delivered, with the list its deliveries
are collected in (None when not collecting), whether they are Outputs, and the content
prefixes that still take a delivery to its checks (``dispatch.quiet_unless``)."""

_LIMIT = 1 << 14
"""Entries per table before it starts over: bounds memory on inputs with endless heads."""


@dataclass(frozen=True)
class Tables:
    """The lookup tables of a conversation pass for one agent kind."""

    labels: dict[str, tuple[MessageType, str, str]]
    """label → (type, its tag, its id prefix) for the profile; tuples, because hashing enum
    members is slow on the per-message path."""
    verdicts: dict[str, Verdict]
    """tool name → why this agent may not call it, for the tools it may not call."""
    special: frozenset[str]
    """Tools some check looks into: protocol tools and those with a verdict."""
    protocol_plain: frozenset[str]
    """Protocol tools without a verdict here: checked call by call as usual."""


def _build_tables(profile: Profile, tools: ToolCatalog, is_leader: bool,
                  is_sub: bool) -> Tables:
    labels = {t.label: (t, t.tag, t.prefix) for t in MessageType}
    if profile is not Profile.STRICT:
        done = MessageType.COMPLETION
        labels[ASTRION_COMPLETION_LABEL] = (done, done.tag, done.prefix)
    verdicts: dict[str, Verdict] = {}
    if is_sub:
        for name in tools.leader_only:
            verdicts[name] = Verdict.LEADER_TOOL
    if is_leader:
        for name in tools.sub_agent_only:
            verdicts[name] = Verdict.SUB_AGENT_TOOL
    for name in tools.forbidden:
        verdicts[name] = Verdict.FORBIDDEN
    for name in tools.removed:
        verdicts[name] = Verdict.REMOVED
    return Tables(labels, verdicts, tools.protocol.union(verdicts),
                  tools.protocol.difference(verdicts))


def _put(table: dict[Any, Any], key: Any, value: Any) -> None:
    if len(table) >= _LIMIT:
        table.clear()
    table[key] = value


class Memo:
    """The memo of one linter: shared by the conversations it lints, never by two linters."""

    def __init__(self) -> None:
        self._catalogs: dict[Profile, ToolCatalog] = {}
        self._tables: dict[tuple[Profile, bool, bool], tuple[ToolCatalog, Tables]] = {}
        self._id_tests: dict[str, IdTest] = {}
        self._selections: dict[frozenset[str], Selection] = {}
        self.plans: dict[tuple[object, ...], Plan] = {}
        """Heads found fine (only the id left to check), by everything a plan depends on."""
        self.quiet: dict[tuple[object, ...], tuple[MessageType, IdTest, bool, tuple[str, ...]]] = {}
        """Heads found quiet where they were delivered, by what makes them so."""
        self.head_lines: dict[str, tuple[str, str, str, str, str]] = {}
        """Header lines of quiet deliveries, each with the ``"\nid: "`` that follows it →
        (sender, label, tag, the head's lines after the id, the closing lines): what ``scan``
        finds of them."""
        self.answer_lines: dict[str, tuple[str, str, str, str]] = {}
        """Header lines of Answers no check reported, each with the ``"\nid: "`` that follows
        it → (sender, label, the head's lines after the id up to the question id, the closing
        lines)."""
        self.placement_quiet: dict[tuple[Owner, MessageType, str], tuple[str, ...] | None] = {}
        """(owner, type, sender) → the content prefixes of the deliveries of that type from
        that sender in that owner's conversation that a check of delivered envelopes may
        report (``dispatch.quiet_unless``; None: any delivery). Every check counts, on or
        off."""
        self.answer_quiet: dict[tuple[Owner, str, str | None], bool] = {}
        """(owner, sender, tool) → whether no check of
        returned envelopes ever reports an Answer from that sender as the result of that tool
        in that owner's conversation (every check counts, on or off, so the verdict holds
        whatever a file selects)."""

    def tools(self, profile: Profile) -> ToolCatalog:
        """The tool catalog of ``profile``, with the argument checks it has built so far."""
        catalog = self._catalogs.get(profile)
        if catalog is None:
            catalog = self._catalogs[profile] = tool_catalog(profile)
        return catalog

    def tables(self, profile: Profile, tools: ToolCatalog, is_leader: bool,
               is_sub: bool) -> Tables:
        """The lookup tables for a conversation of this agent kind, built once."""
        key = (profile, is_leader, is_sub)
        found = self._tables.get(key)
        if found is not None and found[0] is tools:
            return found[1]
        tables = _build_tables(profile, tools, is_leader, is_sub)
        self._tables[key] = (tools, tables)
        return tables

    def selection(self, enabled: frozenset[str]) -> Selection:
        """The checks of the rules in ``enabled`` by fact type, selected once."""
        found = self._selections.get(enabled)
        if found is None:
            found = select(enabled)
            _put(self._selections, enabled, found)
        return found

    def id_test(self, pattern: str) -> IdTest:
        """``pattern`` compiled to a full-match test, once."""
        test = self._id_tests.get(pattern)
        if test is None:
            test = re.compile(pattern).fullmatch
            _put(self._id_tests, pattern, test)
        return test

    def add_plan(self, key: tuple[object, ...], plan: Plan) -> None:
        """Remember a head found fine."""
        _put(self.plans, key, plan)

    def add_quiet(self, key: tuple[object, ...],
                  verdict: tuple[MessageType, IdTest, bool, tuple[str, ...]]) -> None:
        """Remember a head found quiet where it was delivered."""
        _put(self.quiet, key, verdict)

    def add_head_line(self, line: str, parts: tuple[str, str, str, str, str]) -> None:
        """Remember the header line of a quiet delivery."""
        _put(self.head_lines, line, parts)

    def add_placement_quiet(self, key: tuple[Owner, MessageType, str],
                            quiet: tuple[str, ...] | None) -> None:
        """Remember which deliveries of ``key`` are quiet."""
        _put(self.placement_quiet, key, quiet)

    def add_answer_quiet(self, key: tuple[Owner, str, str | None], quiet: bool) -> None:
        """Remember whether Answers of ``key`` are quiet."""
        _put(self.answer_quiet, key, quiet)

    def add_answer_line(self, line: str, parts: tuple[str, str, str, str]) -> None:
        """Remember the header line of an Answer no check reported."""
        _put(self.answer_lines, line, parts)
