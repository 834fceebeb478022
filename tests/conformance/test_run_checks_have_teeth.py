"""Every run check has teeth (issue #26): for each check of ``RUN_CHECKS`` a router with one
mistake fails that check, with its requirements, and no other run check fails on it, so
that the mistake is the check's alone; the same router without the mistake passes it.

The routers are the reference router with one mistake, certified in process on virtual time
(``routers/broken_inprocess.py``), but where only a router run as a process shows the
mistake: a router that exits with another status than 0 (the in-process harness has no exit
status), and a reply kept after a stop (profile astrion, which only the router written from
the specification runs).
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from teamwire.cli import run_cmd
from teamwire.conformance.capabilities import Capabilities, capabilities_from_json
from teamwire.conformance.checks import Status, Verdict, check_run
from teamwire.conformance.inprocess import InProcessRouter, RouterFactory, reference_router
from teamwire.conformance.run_checks import RUN_CHECKS as REGISTRY
from teamwire.conformance.runner import Run, play, run_scenario
from teamwire.conformance.scenario import load_scenario
from teamwire.conformance.traceability import RUN_CHECKS
from tests.conformance.routers import broken_inprocess

ROOT = Path(__file__).resolve().parents[2]
SCENARIOS = ROOT / "conformance" / "scenarios"
MINI = ROOT / "tests" / "conformance" / "routers" / "mini_router.py"
REFERENCE_DECLARED = capabilities_from_json(run_cmd.CAPABILITIES)


@dataclass(frozen=True)
class Fault:
    """A router with one mistake, the scenario that shows it, and what the check says."""

    check: str
    """The run check that catches the mistake (a name of RUN_CHECKS)."""
    scenario: str
    requirements: tuple[str, ...]
    """The requirements the failed check names."""
    reason: str
    """Words of the failed check's reason."""
    factory: str = ""
    """The fault of broken_inprocess.py, certified in process."""
    command: tuple[str, ...] = ()
    """Or the router command, run as a process, with ``env`` set."""
    env: dict[str, str] = field(default_factory=dict)
    unbroken: tuple[str, ...] = ()
    """The same router command without the mistake."""
    astrion: bool = False
    """The router declares profile astrion."""


PY = sys.executable
FAULTS = [
    pytest.param(Fault("contract", "task-to-idle-sub-agent", ("TW-CERT-004",),
                       "the router did not exit within", factory="never_exits"),
                 id="never-exits"),
    pytest.param(Fault("contract", "task-to-idle-sub-agent", ("TW-CERT-004",),
                       "the router exited with status 3 once the session had ended",
                       command=("sh", "-c", f"'{PY}' '{MINI}'; exit 3"),
                       unbroken=("sh", "-c", f"'{PY}' '{MINI}'")),
                 id="exits-with-status-3-after-the-session"),
    pytest.param(Fault("conversation-opening", "task-to-idle-sub-agent",
                       ("TW-TOOL-043", "TW-TOOL-044", "TW-CERT-002", "TW-CERT-006"),
                       "begins with the roles ['system', 'system', 'user']",
                       factory="two_system_messages"), id="two-system-messages"),
    pytest.param(Fault("append-only", "task-to-idle-sub-agent", ("TW-CERT-007",),
                       "call 2 of Team Leader does not start with what call 1 held",
                       factory="rewrites_history"), id="rewrites-the-system-message"),
    pytest.param(Fault("one-result-per-tool-call", "task-to-idle-sub-agent", ("TW-CERT-008",),
                       "tool call call_tl_1 of Team Leader has 0 results",
                       factory="drops_tool_results"), id="drops-tool-results"),
    pytest.param(Fault("tool-set", "task-to-idle-sub-agent", ("TW-CERT-009",),
                       "model call 1 of UI Operator_1 offers ['answer_other_agent', "
                       "'ask_master', 'ask_other_agent', 'create_sub_agent'",
                       factory="leader_tool_for_sub_agents"),
                 id="offers-a-sub-agent-a-leader-tool"),
    pytest.param(Fault("tool-set", "task-to-idle-sub-agent", ("TW-CERT-009",),
                       "model call 1 of UI Operator_1 offers ['answer_other_agent', "
                       "'ask_other_agent', 'list_active_sub_agents']",
                       factory="sub_agent_tool_left_out"),
                 id="leaves-a-sub-agent-tool-out"),
    pytest.param(Fault("no-duplicates", "task-to-idle-sub-agent", ("TW-DEL-002",),
                       "holds message", factory="duplicates_envelopes"),
                 id="delivers-each-envelope-twice"),
    pytest.param(Fault("restored-conversation", "restart-while-asking",
                       ("TW-DUR-004", "TW-DUR-005"),
                       "Team Leader's model call for reply 3 does not begin with the "
                       "conversation it held before", factory="forgets_after_restart"),
                 id="forgets-a-message-on-restart"),
    pytest.param(Fault("dropped-replies", "astrion-stop-during-model-call", ("TW-PROF-037",),
                       "holds the reply to its call 1", command=(PY, str(MINI), "--profile",
                                                                 "astrion"),
                       env={"MINI_ROUTER_FAULT": "stop-keeps-reply"},
                       unbroken=(PY, str(MINI), "--profile", "astrion"), astrion=True),
                 id="keeps-a-reply-after-a-stop"),
    pytest.param(Fault("feature send-delivery", "batch-drain", ("TW-TOOL-012", "TW-CERT-016"),
                       "the router declares send-delivery, but", factory="drops_delivery"),
                 id="declares-send-delivery-and-leaves-it-out"),
]


def _faults() -> Iterator[Fault]:
    for param in FAULTS:
        [fault] = param.values
        assert isinstance(fault, Fault)
        yield fault


def test_every_run_check_has_a_fault_and_every_fault_a_run_check() -> None:
    """A run check added without a fault here, or one renamed or removed while the table
    still names it, fails: RUN_CHECKS and the table move together. A check that cannot fail
    (it reports what was left unchecked) has no fault to catch; it cannot be given a failing
    verdict either."""
    named = {fault.check for fault in _faults()}
    judging = {name for name, check in REGISTRY.items() if check.judges}
    assert sorted(judging - named) == [], "give these run checks a fault"
    for name in set(REGISTRY) - judging:
        with pytest.raises(ValueError, match="cannot fail"):
            REGISTRY[name].verdict(Status.FAIL)
    assert sorted(named - set(RUN_CHECKS)) == [], "these run checks no longer exist"
    for fault in _faults():
        assert set(fault.requirements) <= set(RUN_CHECKS[fault.check]), fault.check


def _astrion_declaration() -> Capabilities:
    printed = subprocess.run([PY, str(MINI), "--profile", "astrion", "--describe"],
                             capture_output=True, text=True, timeout=60, check=True).stdout
    return capabilities_from_json(json.loads(printed))


def _certify(fault: Fault, broken: bool, monkeypatch: pytest.MonkeyPatch) -> list[Verdict]:
    scenario = load_scenario(SCENARIOS / f"{fault.scenario}.json")
    if fault.factory:
        factory: RouterFactory = getattr(broken_inprocess, fault.factory) if broken \
            else reference_router
        run: Run = play(scenario, InProcessRouter(scenario, factory))
        return check_run(run, REFERENCE_DECLARED)
    for name, value in fault.env.items():
        if broken:
            monkeypatch.setenv(name, value)
        else:
            monkeypatch.delenv(name, raising=False)
    declared = _astrion_declaration() if fault.astrion else Capabilities()
    run = run_scenario(scenario, fault.command if broken else fault.unbroken, wait=2,
                       capabilities=declared)
    return check_run(run, declared)


@pytest.mark.parametrize("fault", FAULTS)
def test_a_fault_fails_its_run_check_alone(fault: Fault,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    verdicts = _certify(fault, True, monkeypatch)
    [caught] = [v for v in verdicts if v.check == fault.check]
    assert caught.status is Status.FAIL, caught
    assert caught.requirements == fault.requirements
    assert fault.reason in caught.reason
    assert [v for v in verdicts if v.check in RUN_CHECKS and v.check != fault.check
            and v.status is Status.FAIL] == []


@pytest.mark.parametrize("fault", FAULTS)
def test_without_the_fault_the_same_router_passes_that_run_check(
        fault: Fault, monkeypatch: pytest.MonkeyPatch) -> None:
    """The check fails for the mistake, not for the scenario or the way the router runs."""
    verdicts = _certify(fault, False, monkeypatch)
    assert [v.status for v in verdicts if v.check == fault.check] == [Status.PASS]
    assert [v for v in verdicts if v.status is Status.FAIL] == []
