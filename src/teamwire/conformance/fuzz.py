"""Model-based fuzzing of routers: generated scenarios, judged against the reference router.

hypothesis draws what every model says and when the harness answers it, while the reference
router runs in this process (``conformance.inprocess``): each time the router is quiet with
model calls held, a draw picks the call to answer next (or, at level durable, the call to
crash at), and the first time a call of an agent is answered, draws write that agent's reply:
the Team Leader creates sub-agents, sends messages, asks and answers, terminates, lists; a
sub-agent asks the Team Leader or a peer, notifies a peer, answers a peer; any reply may
instead end the turn, whatever the receiver of a message is doing at that moment (blocked in
an ask, running, idle). Whatever the reference router then shows each model becomes the
scenario's expectations, one per model call, so a generated scenario is an ordinary scenario
vector (schema ``scenario``): a router under test that shows anything else fails it. A
failing scenario is shrunk by hypothesis to a minimal one and written out, to be replayed
with ``teamwire certify --router CMD --scenario FILE``.

hypothesis is needed only here (``pip install 'teamwire[fuzz]'``).
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from random import Random
from typing import TYPE_CHECKING, Any

from teamwire.conformance.capabilities import Capabilities
from teamwire.conformance.checks import Status, Verdict, answered_calls, appended, check_run
from teamwire.conformance.endpoint import ModelEndpoint
from teamwire.conformance.inprocess import InProcessRouter, reference_router
from teamwire.conformance.runner import DEFAULT_WAIT, Run
from teamwire.conformance.scenario import Reply, Scenario, scenario_from_json
from teamwire.envelope import LEADER_NAME

if TYPE_CHECKING:
    from hypothesis.strategies import DrawFn, SearchStrategy

ASK_TIMEOUT = 5.0
"""The ask timeout of generated scenarios: an ask nobody answers fails in five seconds, in
virtual time in process and in real time when a vector is replayed against a process."""

SHRINK_BUDGET = 60.0
"""Seconds shrinking may take after the first failure; then the smallest failing scenario
found so far is reported as it is."""

SETTLE = 0.1
"""Seconds a router run as a process gets after each answer of a generated scenario: its
schedule was drawn against the reference router quiet before each step, and a process gives
no sign of being quiet when an answer caused no new model call."""

LEADER_TOKEN = "[tw:leader]"
REQUEST = f"Plan and build a small web shop. {LEADER_TOKEN}"
ROLES = (("ui-operator", "UI Operator", "uio"), ("full-stack-engineer", "Full-Stack Engineer",
                                                 "fse"))
"""The preset roles: role id, role name, the tag of an instance's token and ids."""
MAX_INSTANCE = 2
"""Instance numbers drawn: 1 and 2 of each role (with 2, a number two roles share)."""
MAX_CALLS_PER_AGENT = 48
MAX_STEPS = 160
MAX_CRASHES = 2
REQUIREMENTS = ["TW-ROUTE-007", "TW-ROUTE-008", "TW-ROUTE-009", "TW-ROUTE-010", "TW-ROUTE-011",
                "TW-ROUTE-012", "TW-ROUTE-013", "TW-ROUTE-014", "TW-ROUTE-020", "TW-ROUTE-024",
                "TW-DEL-002"]
DURABLE_REQUIREMENTS = ["TW-DUR-004", "TW-DUR-005"]
TEXTS = ("Done.", None, "Working on it.", "")
"""What a reply says beside its tool calls, or as the turn's end (shrinks to the first)."""

_UNFILLED = Reply("")
_NEVER_GIVEN = Reply("Never given.")


class FuzzUnavailable(RuntimeError):
    """hypothesis is not installed."""


class _OutOfTime(BaseException):
    """Shrinking ran out of its budget. Not an Exception: hypothesis would take one raised
    by the condition for a failure of its own and shrink that too."""


def _hypothesis() -> Any:
    try:
        import hypothesis
    except ImportError:
        raise FuzzUnavailable("fuzzing needs hypothesis: pip install 'teamwire[fuzz]'") from None
    return hypothesis


@dataclass
class _Agent:
    name: str
    tag: str
    role_id: str | None
    instance: int
    tool_calls: int = 0
    asks: int = 0


UNUSUAL_IDS = ("constructor", "__proto__", "toString")
"""Ids an agent may choose (TW-ID-001) that name members every JavaScript object inherits:
drawn now and then for an ask_master, so that a router keeping ids as a plain object's keys
is caught (TW-ID-013)."""


@dataclass
class _Draft:
    """One scenario being drawn while the reference router plays it."""

    draw: DrawFn
    actions: int
    """Tool calls the models may still make; then every reply ends its turn."""
    agents: dict[str, _Agent] = field(default_factory=dict)
    created: list[_Agent] = field(default_factory=list)
    """Sub-agents the Team Leader's script has tried to create, in order (some may fail)."""
    asks: list[tuple[str, str, str]] = field(default_factory=list)
    """(asker, receiver, question id) of every ask a script made."""
    unusual_ids: list[str] = field(default_factory=lambda: list(UNUSUAL_IDS))
    """The unusual ids not chosen yet: each may be chosen once in a session."""
    texts: int = 0

    def text(self, stem: str) -> str:
        self.texts += 1
        return f"{stem} {self.texts}."

    # -- the replies ----------------------------------------------------------------------

    def reply(self, agent: _Agent) -> Reply:
        from hypothesis import strategies as st

        count = self.draw(st.integers(0, min(2, self.actions)))
        content = self.draw(st.sampled_from(TEXTS))
        calls = []
        for _ in range(count):
            self.actions -= 1
            name, arguments = (self._leader_call() if agent.name == LEADER_NAME
                               else self._sub_agent_call(agent))
            agent.tool_calls += 1
            calls.append((f"call_{agent.tag}_{agent.tool_calls}", name,
                          json.dumps(arguments, ensure_ascii=False)))
        return Reply(content, tuple(calls))

    def _target(self) -> tuple[int, str | None, _Agent | None]:
        """A sub-agent to address: one created (or tried) most of the time, else any number."""
        from hypothesis import strategies as st

        if self.created and self.draw(st.booleans()) is False:
            target = self.created[self.draw(st.integers(0, len(self.created) - 1))]
            named = self.draw(st.booleans())
            return target.instance, target.role_id if named else None, target
        instance = self.draw(st.integers(1, MAX_INSTANCE + 1))
        return instance, None, None

    def _leader_call(self) -> tuple[str, dict[str, Any]]:
        from hypothesis import strategies as st

        kind = self.draw(st.sampled_from(
            ("create_sub_agent", "send_message_to_sub_agent", "answer_sub_agent_question",
             "ask_sub_agent", "terminate_sub_agent", "list_active_sub_agents")))
        if kind == "create_sub_agent":
            role, role_name, tag = ROLES[self.draw(st.integers(0, len(ROLES) - 1))]
            instance = self.draw(st.integers(1, MAX_INSTANCE))
            name = f"{role_name}_{instance}"
            agent = self.agents.get(name)
            if agent is None:
                agent = _Agent(name, f"{tag}{instance}", role, instance)
                self.agents[name] = agent
            if agent not in self.created:
                self.created.append(agent)
            return kind, {"agent_id": instance, "role_id": role,
                          "task": f"{self.text('Build part')} [tw:{agent.tag}]"}
        if kind == "list_active_sub_agents":
            return kind, {}
        if kind == "answer_sub_agent_question":
            mine = [a for a in self.asks if a[1] == LEADER_NAME]
            if mine:
                asker, _, question = mine[self.draw(st.integers(0, len(mine) - 1))]
                sender = self.agents[asker]
                return kind, {"agent_id": sender.instance, "role_id": sender.role_id,
                              "question_id": question, "answer": self.text("Answer")}
            kind = "send_message_to_sub_agent"  # no question asked yet: say something instead
        instance, role_id, target = self._target()
        arguments: dict[str, Any] = {"agent_id": instance}
        if role_id is not None:
            arguments["role_id"] = role_id
        if kind == "send_message_to_sub_agent":
            arguments["message"] = self.text("Note")
        elif kind == "ask_sub_agent":
            leader = self.agents[LEADER_NAME]
            leader.asks += 1
            question = f"ask_tl_{leader.asks:03d}"
            arguments.update(question=self.text("Question"), question_id=question)
            if target is not None:
                self.asks.append((LEADER_NAME, target.name, question))
        return kind, arguments

    def _sub_agent_call(self, agent: _Agent) -> tuple[str, dict[str, Any]]:
        from hypothesis import strategies as st

        kind = self.draw(st.sampled_from(
            ("ask_master", "ask_other_agent", "notify_other_agent", "answer_other_agent",
             "list_active_sub_agents")))
        if kind == "list_active_sub_agents":
            return kind, {}
        if kind == "answer_other_agent":
            mine = [a for a in self.asks if a[1] == agent.name and a[0] != LEADER_NAME]
            if mine:
                asker, _, question = mine[self.draw(st.integers(0, len(mine) - 1))]
                source = self.agents[asker]
                return kind, {"source_agent_id": source.instance, "role_id": source.role_id,
                              "message_id": question, "answer": self.text("Answer")}
            kind = "ask_master"  # nobody asked it anything yet: ask instead
        agent.asks += 1
        if kind == "ask_master":
            question = f"ask_{agent.tag}_{agent.asks:03d}"
            if self.unusual_ids and self.draw(st.integers(0, 3)) == 0:
                question = self.unusual_ids.pop(0)
            self.asks.append((agent.name, LEADER_NAME, question))
            return kind, {"question": self.text("Question"), "question_id": question}
        instance, role_id, target = self._target()
        notify = kind == "notify_other_agent"
        message_id = f"{'msg' if notify else 'ask'}_{agent.tag}_{agent.asks:03d}"
        if target is not None and not notify:
            self.asks.append((agent.name, target.name, message_id))
        arguments: dict[str, Any] = {"target_agent_id": instance, "message_id": message_id,
                                     "content": self.text("Note" if notify else "Question")}
        if role_id is not None:
            arguments["role_id"] = role_id
        return "ask_other_agent", arguments


def generate(draw: DrawFn, level: str = "core", *, actions: int = 10,
             wait: float = DEFAULT_WAIT, knobs: dict[str, float] | None = None,
             at_timers: bool = False) -> dict[str, Any]:
    """Draw one scenario by playing the reference router in process; its JSON form (schema
    ``scenario``). ``knobs`` are the knobs the scenario sets (default: ``ask_timeout``
    ASK_TIMEOUT); a router that reads none is given a scenario that sets none.

    Rejects (``hypothesis.reject``) a draw the reference router does not end on its own
    within half of ``wait`` virtual seconds after each step (with no ask timeout set, every
    draw in which an ask would have to time out), and a draw in which two timers fell due at
    one virtual instant: their order is the virtual clock's, and a router on a real clock
    need not share it. ``wait`` is how long the harness waits for each expected call, or for
    the router to exit: a router run as a process needs the other half for its own work on a
    real clock (two ask timeouts one after the other take the whole of it).

    With ``at_timers``, for a router whose clock the harness keeps (in process), a step may
    answer its call at the instant the router's next timer falls due (``at_timer``): the
    tie TW-ROUTE-028 decides, which a router on a real clock cannot be shown."""
    from hypothesis import reject
    from hypothesis import strategies as st

    draft = _Draft(draw, actions)
    draft.agents[LEADER_NAME] = _Agent(LEADER_NAME, "tl", None, 0)
    scripts: dict[str, list[Reply]] = {}
    knobs = {"ask_timeout": ASK_TIMEOUT} if knobs is None else dict(knobs)
    # The schedule is drawn with SETTLE virtual seconds after each answer, as it is replayed.
    stub = Scenario(name="fuzz", title="", requirements=(), level=level, profile="strict",
                    request=REQUEST, tokens={}, scripts={}, schedule=(), expectations=(),
                    knobs=knobs, settle=SETTLE)
    endpoint = ModelEndpoint({}, {})
    router = InProcessRouter(stub, reference_router, endpoint=endpoint)
    run = Run(stub, endpoint.calls, endpoint.breaches, endpoint.unexpected, endpoint.repeats)

    def known(agent: _Agent) -> None:
        if agent.name not in scripts:
            token = LEADER_TOKEN if agent.name == LEADER_NAME else f"[tw:{agent.tag}]"
            scripts[agent.name] = [_UNFILLED] * MAX_CALLS_PER_AGENT
            endpoint.tokens[token] = agent.name
            endpoint.scripts[agent.name] = scripts[agent.name]

    known(draft.agents[LEADER_NAME])
    schedule: list[dict[str, Any]] = []
    seen: set[int] = set()
    crashes = 0
    horizon = wait / 2
    try:
        if not router.start(run):
            reject()
        while True:
            held = router.held_calls(horizon)
            if not held:
                break
            if len(schedule) > MAX_STEPS:
                reject()
            call = held[draw(st.integers(0, len(held) - 1))]
            for other in held:  # each step waits for what the previous one caused (see docs)
                if id(other) not in seen and other is not call:
                    schedule.append({"agent": other.agent, "call": other.number, "await": True})
                seen.add(id(other))
            if level == "durable" and crashes < MAX_CRASHES and draw(st.booleans()):
                crash: dict[str, Any] = {"agent": call.agent, "call": call.number,
                                         "crash": True}
                timeout = knobs.get("ask_timeout")
                if timeout is not None and draw(st.integers(0, 3)) == 0:
                    # Down past the ask timeout: a router whose clock ran on meanwhile times
                    # out an ask that still has time left (TW-DUR-010). In process no clock
                    # moves while it is down, so the expectations are unchanged.
                    crash["down"] = float(timeout) + 1.0
                schedule.append(crash)
                crashes += 1
                router.crash()
                seen.clear()
                if not router.start(run):
                    reject()
                continue
            script = scripts[call.agent]
            if script[call.number - 1] is _UNFILLED:
                script[call.number - 1] = draft.reply(draft.agents[call.agent])
                for agent in draft.created:
                    known(agent)
            step: dict[str, Any] = {"agent": call.agent, "call": call.number}
            if at_timers and draw(st.integers(0, 7)) == 0 \
                    and router.move_to_next_timer(horizon):
                step["at_timer"] = True
            schedule.append(step)
            router.release(call)
        if router.ended() is None or run.unexpected or run.breaches or router.timer_ties():
            reject()
    finally:
        router.stop(run)
    for step in schedule:
        # A call that was only awaited (its agent terminated, or a crash took it) needs a
        # scripted reply all the same for the vector to be valid; it is never given.
        script = scripts[step["agent"]]
        for number in range(step["call"]):
            if script[number] is _UNFILLED:
                script[number] = _NEVER_GIVEN
    tokens = {name: token for token, name in endpoint.tokens.items()}
    return _scenario_json(level if crashes else "core", scripts, tokens, schedule, run, knobs)


def _scenario_json(level: str, scripts: dict[str, list[Reply]], tokens: dict[str, str],
                   schedule: list[dict[str, Any]], run: Run,
                   knobs: dict[str, float]) -> dict[str, Any]:
    answered = answered_calls(run)
    agents = []
    for name, script in scripts.items():
        used = [reply for reply in script if reply is not _UNFILLED]
        if not used:
            continue  # a sub-agent whose creation failed, or that never got a turn
        agents.append({"name": name, "token": tokens[name],
                       "replies": [_reply_json(reply) for reply in used]})
    expect = [{"agent": agent, "call": number, "appended": appended(calls, number)}
              for agent, calls in answered.items() for number in sorted(calls)]
    body: dict[str, Any] = {
        "level": level, "profile": "strict", "request": REQUEST,
        **({"knobs": knobs} if knobs else {}), "settle": SETTLE, "agents": agents,
        "schedule": schedule, "expect": expect}
    digest = hashlib.sha256(json.dumps(body, sort_keys=True, ensure_ascii=False)
                            .encode("utf-8")).hexdigest()[:10]
    steps = sum(1 for s in schedule if not s.get("await"))
    return {"scenario": f"fuzz-{digest}",
            "title": f"A generated scenario: {len(agents)} agents, {steps} steps, the "
                     "reference router's observations expected at every model call",
            "requirements": REQUIREMENTS + (DURABLE_REQUIREMENTS if level == "durable" else []),
            **body}


def _reply_json(reply: Reply) -> dict[str, Any]:
    out: dict[str, Any] = {"content": reply.content}
    if reply.tool_calls:
        out["tool_calls"] = [{"id": call_id, "name": name, "arguments": json.loads(arguments)}
                             for call_id, name, arguments in reply.tool_calls]
    return out


def scenarios(level: str = "core", *, actions: int = 10, wait: float = DEFAULT_WAIT,
              knobs: dict[str, float] | None = None, at_timers: bool = False
              ) -> SearchStrategy[dict[str, Any]]:
    """The hypothesis strategy of generated scenarios (their JSON form; ``wait``, ``knobs``
    and ``at_timers`` as for ``generate``)."""
    _hypothesis()
    from hypothesis import strategies as st

    @st.composite
    def scenario(draw: DrawFn) -> dict[str, Any]:
        return generate(draw, level, actions=actions, wait=wait, knobs=knobs,
                        at_timers=at_timers)

    return scenario()


@dataclass
class FuzzOutcome:
    """What a fuzzing run found."""

    examples: int
    """Generated scenarios run against the router under test (shrinking included)."""
    failing: dict[str, Any] | None = None
    """The minimal scenario the router under test fails, in JSON form."""
    run: Run | None = None
    verdicts: list[Verdict] = field(default_factory=list)
    """The router under test's run of the minimal scenario, and its verdicts."""
    written: Path | None = None
    shrunk: bool = True
    """False when shrinking ran out of its time budget: ``failing`` is the smallest failing
    scenario found by then, not necessarily a minimal one."""


def failed(verdicts: list[Verdict]) -> bool:
    """Whether any check failed."""
    return any(v.status is Status.FAIL for v in verdicts)


def fuzz(run_target: Callable[[Scenario], Run], *, examples: int, seed: int = 0,
         level: str = "core", actions: int = 10, out: Path | None = None,
         capabilities: Capabilities | None = None, wait: float = DEFAULT_WAIT,
         shrink_budget: float = SHRINK_BUDGET, at_timers: bool = False,
         clock: Callable[[], float] = time.monotonic) -> FuzzOutcome:
    """Run ``examples`` generated scenarios against the router ``run_target`` runs; on the
    first it fails, shrink to a minimal failing scenario and write it into ``out`` (if
    given) as ``<scenario>.json``. The scenarios set only knobs ``capabilities`` declares
    (TW-CERT-015): without ``ask_timeout`` among them, none, and no ask times out; each is
    drawn to fit the harness's ``wait`` (see ``generate``).

    Shrinking stops ``shrink_budget`` seconds (of ``clock``) after the first failure: the
    smallest failing scenario found by then is reported, with ``shrunk`` False. Only a
    router whose clock the harness keeps may be given ``at_timers`` (see ``generate``)."""
    hypothesis = _hypothesis()
    outcome = FuzzOutcome(0)
    first_failure: list[float] = []
    smallest: list[dict[str, Any]] = []
    declared = (capabilities or Capabilities()).knobs
    knobs = {"ask_timeout": ASK_TIMEOUT} if "ask_timeout" in declared else {}

    def fails(data: dict[str, Any]) -> bool:
        if first_failure and clock() - first_failure[0] > shrink_budget:
            raise _OutOfTime
        outcome.examples += 1
        run = run_target(scenario_from_json(data, data["scenario"]))
        failing = failed(check_run(run, capabilities))
        if failing:
            # hypothesis only tries candidates smaller than the failing one it holds.
            smallest[:] = [data]
            if not first_failure:
                first_failure.append(clock())
        return failing

    settings = hypothesis.settings(
        max_examples=examples, database=None, deadline=None, derandomize=False,
        suppress_health_check=list(hypothesis.HealthCheck), report_multiple_bugs=False)
    try:
        found = hypothesis.find(scenarios(level, actions=actions, wait=wait, knobs=knobs,
                                          at_timers=at_timers),
                                fails,
                                settings=settings,
                                random=Random(seed))
    except hypothesis.errors.NoSuchExample:
        return outcome
    except _OutOfTime:
        found, outcome.shrunk = smallest[0], False
    outcome.failing = found
    outcome.run = run_target(scenario_from_json(found, found["scenario"]))
    outcome.verdicts = check_run(outcome.run, capabilities)
    if out is not None:
        out.mkdir(parents=True, exist_ok=True)
        outcome.written = out / f"{found['scenario']}.json"
        outcome.written.write_text(json.dumps(found, ensure_ascii=False, indent=1) + "\n",
                                   encoding="utf-8")
    return outcome


def in_process(factory: Any = reference_router, *, wait: float = DEFAULT_WAIT
               ) -> Callable[[Scenario], Run]:
    """Run scenarios against an in-process router (default: the reference router)."""
    from teamwire.conformance.runner import play

    def run_target(scenario: Scenario) -> Run:
        return play(scenario, InProcessRouter(scenario, factory), wait=wait)

    return run_target
