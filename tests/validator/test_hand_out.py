"""The hand-out of a fact to its checks: every check of the selection runs, in code order,
and each finding carries the rule of the check that made it, whatever the number of checks;
a conversation pass reports through one reporter that does not keep the pass alive."""

from __future__ import annotations

import gc
import weakref
from typing import Any

import pytest

from teamwire.envelope import Profile
from teamwire.validator import REGISTRY
from teamwire.validator.dispatch import Reporter, hand_out, select
from teamwire.validator.emitter import Emitter, Policy
from teamwire.validator.facts import FACT_TYPES, Owner, ToolCall, UserText
from teamwire.validator.model import Agent, AgentKind
from teamwire.validator.registry import Check, Rule, Trigger
from teamwire.validator.rules import REGISTRY as RULES
from teamwire.validator.tooling import Verdict, tool_catalog

EVERY = frozenset(REGISTRY.codes())


class _Pass:
    """A stand-in pass: records what its reporter emits."""

    def __init__(self) -> None:
        self.emitted: list[tuple[str, str, int | None, str, str | None, int | None]] = []

    def emit(self, rule: Rule, message: str, index: int | None, tail: str = "",
             text: str | None = None, offset: int | None = None) -> None:
        self.emitted.append((rule.code, message, index, tail, text, offset))


def _reporting_checks(count: int) -> tuple[Check[Any], ...]:
    """``count`` checks of distinct registered rules, each reporting its own code."""
    rules = [REGISTRY[code] for code in REGISTRY.codes()[:count]]

    def reporting(rule: Rule) -> Check[Any]:
        def run(fact: Any, report: Any) -> None:
            report(fact, f"from {rule.code}", 2, below="/x")
        return Check(rule, UserText, run, Trigger(prefixes=("x",)))
    return tuple(reporting(rule) for rule in rules)


@pytest.mark.parametrize("count", [1, 2, 3, 9])
def test_each_check_reports_its_own_rule_in_order(count: int) -> None:
    checks = _reporting_checks(count)
    hand = hand_out(checks)
    assert hand is not None
    owner = _Pass()
    hand(UserText(4, "xyz"), Reporter(owner=owner))
    assert owner.emitted == [(c.rule.code, f"from {c.rule.code}", 4, "/content/x", "xyz", 2)
                             for c in checks]


def test_no_checks_hand_out_nothing() -> None:
    assert hand_out(()) is None
    selection = select(frozenset())
    assert all(hand is None for hand in selection.hands.values())
    assert selection.call_hand("ask_master", True, True, True, True) is None


def test_a_later_report_is_made_when_called() -> None:
    rule = REGISTRY.codes()[0]
    made: list[Any] = []

    def run(fact: Any, report: Any) -> None:
        made.append(report.later(fact, "withdrawn unless called"))
    hand = hand_out((Check(REGISTRY[rule], UserText, run, None),))
    assert hand is not None
    owner = _Pass()
    hand(UserText(1, "text"), Reporter(owner=owner))
    assert owner.emitted == []
    made[0]()
    assert owner.emitted == [(rule, "withdrawn unless called", 1, "/content", None, None)]


def test_the_selection_hands_each_fact_type_to_its_enabled_checks() -> None:
    # The hand of each type reports through exactly the checks of the enabled rules: a
    # registered check left out, or one of a rule that is off, would change the rules named.
    enabled = frozenset(code for code in REGISTRY.codes() if code[-1] in "02468")
    selection = select(enabled)
    for fact_type in FACT_TYPES:
        expected = [c.rule.code for c in RULES.checks(fact_type) if c.rule.code in enabled]
        assert (selection.hands[fact_type] is None) == (not expected), fact_type


class _Naming(Reporter):
    """A reporter that records the rule of each check it is told before the check runs."""

    __slots__ = ("named",)

    def __init__(self, owner: _Pass) -> None:
        self.named: list[str] = []
        super().__init__(owner.emit)

    def __setattr__(self, name: str, value: Any) -> None:
        if name == "rule" and value is not None:
            self.named.append(value.code)
        super().__setattr__(name, value)


def test_a_call_hand_runs_the_checks_its_call_kind_selects() -> None:
    # Written from the triggers: TW414 looks into repeated ids only, TW403-TW406 into calls
    # the catalog gives a verdict on.
    selection = select(EVERY)
    catalog = tool_catalog(Profile.STRICT)
    owner = Owner("Team Leader", True, False, True)
    for key, verdict, expected in [
            (("read_file", False, False, True, False), None, ["TW414"]),
            (("close_sub_agent", False, True, False, False), Verdict.REMOVED,
             ["TW403", "TW404", "TW405", "TW406"])]:
        hand = selection.call_hand(*key)
        assert hand is not None and hand is selection.call_hand(*key)  # made once per kind
        assert [c.rule.code for c in selection.calls(*key)] == expected
        recorder = _Pass()
        report = _Naming(recorder)
        hand(ToolCall(3, "call_1", 0, key[0], None, None, False, False, verdict, key[3], False,
                      "{}", None, catalog, owner), report)
        assert report.named == expected
        assert [code for code, *_ in recorder.emitted] == (
            ["TW414"] if verdict is None else ["TW405"])
    assert selection.call_hand("read_file", False, False, False, False) is None


def test_a_pass_is_freed_without_the_cycle_collector() -> None:
    from teamwire.validator.conversation import ConversationLinter
    policy = Policy(EVERY, {r.code: r.severity for r in REGISTRY})
    emitter = Emitter("x.json", policy)
    agent = Agent("UI Operator_1", AgentKind.SUB_AGENT, None, None)
    pass_ = ConversationLinter(emitter, agent, profile=Profile.STRICT,
                               tools=tool_catalog(Profile.STRICT))
    pass_.feed_all([{"role": "user", "content": "hello"},
                    {"role": "assistant", "content": None}])  # one finding (TW004)
    assert [f.rule for f in emitter.findings] == ["TW004"]
    gone = weakref.ref(pass_)
    enabled = gc.isenabled()
    gc.disable()
    try:
        del pass_
        assert gone() is None
    finally:
        if enabled:
            gc.enable()
