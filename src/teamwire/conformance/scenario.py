"""Scenario vectors: every agent's script, the schedule, and what the router must show.

A scenario (``conformance/scenarios/*.json``, schema ``scenario``) names the requirements it
checks, the user's request, each agent with the token that identifies its model calls and
its scripted replies, the order in which the harness answers the calls (the schedule), and,
for chosen calls, the messages the router must have appended to the agent's conversation
since its previous call.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

LEVELS = ("core", "durable", "astrion")
"""Certification levels, each including the ones before it."""


class ScenarioError(ValueError):
    """A scenario file that cannot be used, with the reason and where."""


@dataclass(frozen=True)
class Reply:
    """A scripted model reply: text, tool calls, or both."""

    content: str | None = None
    tool_calls: tuple[tuple[str | None, str, str], ...] = ()
    """(call id, tool name, arguments as JSON text); a call id of None is left out of the
    reply, as a model that gives its call no id does (TW-DUR-008)."""
    failures: tuple[str, ...] = ()
    """How the tries of this reply fail before it is given, in order (keys of ``endpoint.FAILURES``):
    each failed try is a model call of its own; the try after the last failure gets the
    reply."""
    fails_every_try: bool = False
    """Every try of the request that first asks for this reply fails, in the forms of
    ``failures`` in turn, however many tries the router makes (TW-CERT-025): the first try
    is released by the schedule, each later try with the same messages at once. The reply
    goes to the first call for it with other messages (the agent's next turn)."""
    dropped: bool = False
    """The router must drop the reply (TW-PROF-037): none of it enters the conversation.
    Once released it counts as consumed in the numbering of the agent's later calls."""

    def message(self) -> dict[str, Any]:
        """The assistant message of a chat-completions response."""
        message: dict[str, Any] = {"role": "assistant", "content": self.content}
        if self.tool_calls:
            message["tool_calls"] = [
                {**({} if call_id is None else {"id": call_id}), "type": "function",
                 "function": {"name": name, "arguments": arguments}}
                for call_id, name, arguments in self.tool_calls]
        return message


@dataclass(frozen=True)
class Step:
    """Release the ``call``-th model call of ``agent`` (1-based); with ``hold``, only wait
    until it has arrived (a later step releases it), so that the schedule goes on only once
    the router has made that call. With ``at_timer``, the call is released at the instant
    the router's next timer is due, before that timer runs (TW-CERT-021): only a harness
    that keeps the router's clock can take such a step."""

    agent: str
    call: int
    hold: bool = False
    at_timer: bool = False


@dataclass(frozen=True)
class Crash:
    """Wait for the ``call``-th model call of ``agent`` and, without answering it, kill the
    router (SIGKILL) and start it again on the same state directory."""

    agent: str
    call: int
    down: float = 0.0
    """Seconds the router stays down between the kill and the new start (TW-CERT-032): time
    its clock must not count (TW-DUR-010). A harness that keeps the router's clock lets none
    of it pass there."""


@dataclass(frozen=True)
class Expectation:
    """What the router appended to ``agent``'s conversation before its ``call``-th call."""

    agent: str
    call: int
    appended: tuple[dict[str, Any], ...]
    requirements: tuple[str, ...] = ()
    """The requirements these messages show (TW-CERT-030); none: the scenario's."""


@dataclass(frozen=True)
class Scenario:
    """One scenario vector."""

    name: str
    title: str
    requirements: tuple[str, ...]
    level: str
    profile: str
    request: str
    tokens: dict[str, str]
    """Token → agent name."""
    scripts: dict[str, tuple[Reply, ...]]
    schedule: tuple[Step | Crash, ...]
    expectations: tuple[Expectation, ...]
    knobs: dict[str, Any] = field(default_factory=dict)
    source: str = ""
    refused: bool = False
    """The router must refuse to start with the scenario's knobs: exit with a non-zero status
    without calling its model (TW-ROUTE-032, TW-CERT-020)."""
    settle: float = 0.0
    """Seconds a router run as a process is given after each answer before the next step
    (generated scenarios: their schedules were drawn against a router that was quiet before
    each step, which in process the harness waits for instead)."""
    wait: float = 0.0
    """Seconds of the router's clock a step may wait for its call: a timer of a default no
    knob shortens (TW-CERT-031). A harness that keeps the router's clock waits at least that
    long; one whose bound on waits is shorter and that cannot set the clock skips the
    scenario."""

    @property
    def moves_clock(self) -> bool:
        """Whether a step answers a call at a timer's instant, which needs the harness to
        keep the router's clock (an in-process run on virtual time)."""
        return any(isinstance(step, Step) and step.at_timer for step in self.schedule)


def _reply(data: dict[str, Any]) -> Reply:
    calls = tuple((None if call.get("id") is None else str(call["id"]), str(call["name"]),
                   call["arguments"] if isinstance(call["arguments"], str)
                   else json.dumps(call["arguments"], ensure_ascii=False))
                  for call in data.get("tool_calls", ()))
    return Reply(data.get("content"), calls, tuple(data.get("failures", ())),
                 fails_every_try=data.get("fail_every_try") is True,
                 dropped=data.get("dropped") is True)


def scenario_from_json(data: Any, source: str = "") -> Scenario:
    """Build a scenario from its JSON form; ScenarioError if it does not fit the schema."""
    from teamwire import schemas

    errors = schemas.validate("scenario", data)
    if errors:
        first = errors[0]
        raise ScenarioError(f"{source or 'scenario'}: {first.path or '(root)'}: {first.message}")
    agents = data["agents"]
    tokens = {agent["token"]: agent["name"] for agent in agents}
    scripts = {agent["name"]: tuple(_reply(r) for r in agent["replies"]) for agent in agents}
    names = set(scripts)
    for token, name in tokens.items():
        if sum(token in other for other in tokens) > 1:
            raise ScenarioError(f"{source}: the token of {name} is part of another agent's token")
    if list(tokens) and not any(token in data["request"] for token in tokens):
        raise ScenarioError(f"{source}: the request holds no agent's token (the Team Leader's)")
    schedule = tuple(Crash(s["agent"], s["call"], float(s.get("down", 0.0))) if s.get("crash")
                     else Step(s["agent"], s["call"], bool(s.get("await")),
                               bool(s.get("at_timer")))
                     for s in data["schedule"])
    for step in schedule:
        if step.agent not in names or not 1 <= step.call <= len(scripts[step.agent]):
            raise ScenarioError(f"{source}: the schedule releases call {step.call} of "
                                f"{step.agent}, which has no such scripted reply")
    expectations = tuple(Expectation(e["agent"], e["call"], tuple(e["appended"]),
                                     tuple(e.get("requirements", ())))
                         for e in data.get("expect", ()))
    for expectation in expectations:
        foreign = sorted(set(expectation.requirements) - set(data["requirements"]))
        if foreign:
            raise ScenarioError(f"{source}: the expectation of {expectation.agent}'s call "
                                f"{expectation.call} names {', '.join(foreign)}, which the "
                                "scenario's requirements do not list (TW-CERT-029)")
    return Scenario(
        name=data["scenario"], title=data["title"], requirements=tuple(data["requirements"]),
        level=data.get("level", "core"), profile=data.get("profile", "strict"),
        request=data["request"], tokens=tokens, scripts=scripts, schedule=schedule,
        expectations=expectations, knobs=dict(data.get("knobs", {})), source=source,
        settle=float(data.get("settle", 0.0)), refused=data.get("refused") is True,
        wait=float(data.get("wait", 0.0)))


def runs_for(router_profile: str, scenario_profile: str) -> bool:
    """Whether a scenario written for ``scenario_profile`` runs against a router of
    ``router_profile``: its own profile's, and for profile astrion those of profile strict
    too, in astrion's forms (TW-CERT-024, TW-CERT-028)."""
    return scenario_profile == router_profile or (
        router_profile == "astrion" and scenario_profile == "strict")


def load_scenario(path: Path) -> Scenario:
    """Read one scenario file; ScenarioError with the path if it cannot be used."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ScenarioError(f"{path}: {exc}") from None
    return scenario_from_json(data, str(path))
