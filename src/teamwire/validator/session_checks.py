"""The checks of the facts found across a session, selected once per set of enabled rules,
and the hand-out of those facts a batch at a time.

The session checker finds few facts of each kind per bundle but many bundles go through
one linter: what the rules take is selected once, and each kind of fact goes to its checks
in one call with one reporter, rather than one dispatch (and one reporter) per fact.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

from teamwire.validator.dispatch import Emit, Reporter
from teamwire.validator.dispatch import hand_out as dispatch_hand_out
from teamwire.validator.facts import (
    AnswerGiven,
    IdShared,
    MissingConversation,
    OutputMissing,
    OutputUnsaid,
    PairedOutputs,
    RelayedResult,
    SendOutcome,
    UnmatchedDelivery,
)
from teamwire.validator.registry import Check
from teamwire.validator.rules import REGISTRY

Checks = tuple[Check[Any], ...]


class SessionChecks(NamedTuple):
    """The checks of the enabled rules for each kind of fact the session checker finds; an
    empty tuple tells the checker it need not build facts of that kind at all."""

    id_shared: Checks
    send_outcome: Checks
    missing_conversation: Checks
    unmatched_delivery: Checks
    answer_given: Checks
    paired_outputs: Checks
    output_unsaid: Checks
    output_missing: Checks
    relayed_result: Checks


_KINDS = (IdShared, SendOutcome, MissingConversation, UnmatchedDelivery, AnswerGiven,
          PairedOutputs, OutputUnsaid, OutputMissing, RelayedResult)
"""The fact type of each field of ``SessionChecks``, in order."""


def session_checks(enabled: frozenset[str]) -> SessionChecks:
    """The checks of the rules in ``enabled`` (codes) for each kind of session fact.

    A check of a rule that is off could only make findings the emitter drops, so it is
    left out.
    """
    return SessionChecks(*(tuple(c for c in REGISTRY.checks_of(kind) if c.selected(enabled))
                           for kind in _KINDS))


def hand_out(batch: Sequence[tuple[Any, Emit]], checks: Checks) -> None:
    """Hand each fact of ``batch`` to each of ``checks``, fact by fact in order (as one
    dispatch per fact would); its findings go through the emit paired with it."""
    hand = dispatch_hand_out(checks) if batch else None
    if hand is None:
        return
    report = Reporter()
    for fact, report.emit in batch:
        hand(fact, report)


_KEPT = 64
"""Selections one linter keeps (a file's configuration may select its own rules)."""


class SessionSelections:
    """The ``session_checks`` of each set of enabled rules one linter has met, selected
    once; a linter owns one, so two linters never share them."""

    __slots__ = ("_by_enabled",)

    def __init__(self) -> None:
        self._by_enabled: dict[frozenset[str], SessionChecks] = {}

    def of(self, enabled: frozenset[str]) -> SessionChecks:
        """The checks of the rules in ``enabled`` for each kind of session fact."""
        found = self._by_enabled.get(enabled)
        if found is None:
            if len(self._by_enabled) >= _KEPT:
                self._by_enabled.clear()
            found = self._by_enabled[enabled] = session_checks(enabled)
        return found
