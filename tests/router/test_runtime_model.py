"""The runtime Session against the routing core (hypothesis stateful test).

Hypothesis plays the models: every agent's driver is a puppet that waits until the test
hands it a reply (text and protocol tool calls, good and bad). After each step the
session runs until every agent waits. The events the session fed its core are replayed
into a fresh core: the deliveries that core decides must be exactly what the session
put into each conversation (user messages and ask results, in order, once), the session's
view of who runs and who waits must be the core's, and the store must hold what the
session shows, and once nothing is in flight the transcript lints clean of every rule the
router answers for. TW-ROUTE-005 to TW-ROUTE-011, TW-ROUTE-022, TW-DEL-001, TW-DEL-002,
TW-DEL-003, TW-DUR-002.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

from hypothesis import event, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from teamwire.envelope import is_envelope
from teamwire.router import (
    AgentState,
    AppendInline,
    Event,
    FailToolCall,
    ResolveToolCall,
    RoutingCore,
    StartTurn,
    ToolCallBlocked,
)
from teamwire.router.runtime import Session, VirtualClock, error_result
from teamwire.router.runtime.driver import Reply, ToolCall
from teamwire.router.store import MemoryStore
from teamwire.validator import lint_value
from tests.router.helpers import LEADER

ROLES = ("ui-operator", "full-stack-engineer")
MODEL_FAULTS = frozenset({"TW304", "TW305", "TW401", "TW402", "TW403", "TW404", "TW405",
                          "TW406", "TW414", "TW509", "TW510"})
"""Lint rules about what a model did (calls, the ids it chose), not what the router did."""
TEXTS = (None, "", "  ", "working on it", "done")


class Puppet:
    """A driver whose replies come from the test."""

    def __init__(self, clock: VirtualClock) -> None:
        self.clock = clock
        self.pending: asyncio.Future[Reply] | None = None

    async def complete(self, agent: str, messages: list[dict[str, Any]],
                       tools: list[dict[str, Any]]) -> Reply:
        pending = self.pending = asyncio.get_running_loop().create_future()
        self.clock.activity.stop()  # a model call in progress waits for the test
        try:
            reply: Reply = await pending
            return reply
        except asyncio.CancelledError:
            if not pending.done():
                self.clock.activity.start()  # the task ends and counts itself out
            raise
        finally:
            self.pending = None

    def reply(self, reply: Reply) -> None:
        assert self.pending is not None
        self.clock.activity.start()
        self.pending.set_result(reply)


class RuntimeAgainstCore(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.loop = asyncio.new_event_loop()
        self.clock = VirtualClock()
        self.puppets: dict[str, Puppet] = {LEADER: Puppet(self.clock)}
        self.store = MemoryStore()
        self.session = Session(leader=self.puppets[LEADER], drivers=self._driver,
                               store=self.store, clock=self.clock, ask_timeout=100.0)
        self.fed: list[Event] = []
        original = self.session.core.handle

        def recording(event: Event) -> Any:
            actions = original(event)
            self.fed.append(event)  # only events the core accepted
            return actions

        self.session.core.handle = recording  # type: ignore[method-assign]
        self.calls = 0
        self.questions: list[str] = ["ask_nobody_001"]
        self.loop.run_until_complete(self.session.start("build it"))
        self.settle()
        # every run starts with a team: the leader's first reply creates two sub-agents
        self.puppets[LEADER].reply(Reply("Splitting the work.", (
            ToolCall("call_a", "create_sub_agent", json.dumps(
                {"agent_id": 1, "role_id": "ui-operator", "task": "design"})),
            ToolCall("call_b", "create_sub_agent", json.dumps(
                {"agent_id": 1, "role_id": "full-stack-engineer", "task": "api"})))))
        self.settle()

    def _driver(self, name: str, role_id: str) -> Puppet:
        self.puppets[name] = Puppet(self.clock)
        return self.puppets[name]

    def settle(self) -> None:
        self.loop.run_until_complete(self.clock.activity.wait_idle())
        for task in self.session._tasks.values():
            if task.done() and not task.cancelled() and task.exception() is not None:
                raise task.exception()  # type: ignore[misc]

    def thinking(self) -> list[str]:
        return sorted(name for name, p in self.puppets.items()
                      if p.pending is not None and not p.pending.done())

    def teardown(self) -> None:
        self.loop.run_until_complete(self.session.stop())
        self.loop.close()

    # -- the models' replies
    def _fresh(self, prefix: str) -> str:
        self.calls += 1
        question = f"{prefix}_{self.calls:03d}"
        self.questions.append(question)
        return question

    def _call(self, agent: str, data: st.DataObject) -> tuple[str, dict[str, Any]]:
        target = {"agent_id": data.draw(st.sampled_from([1, 1, 1, 2])),
                  "role_id": data.draw(st.sampled_from(ROLES))}
        known = st.sampled_from(self.questions[-3:])  # recent asks: answers often match
        if agent == LEADER:
            name = data.draw(st.sampled_from([
                "create_sub_agent", "create_sub_agent", "send_message_to_sub_agent",
                "ask_sub_agent", "answer_sub_agent_question", "terminate_sub_agent",
                "list_active_sub_agents"]))
            args: dict[str, Any] = {
                "create_sub_agent": {**target, "task": "a task"},
                "send_message_to_sub_agent": {**target, "message": "guidance"},
                "ask_sub_agent": {**target, "question": "eta?"},
                "answer_sub_agent_question": {**target, "answer": "yes",
                                              "question_id": data.draw(known)},
                "terminate_sub_agent": target,
                "list_active_sub_agents": {},
            }[name]
            if name == "ask_sub_agent":
                args["question_id"] = self._fresh("ask_tl")
            return name, args
        name = data.draw(st.sampled_from(["ask_master", "ask_other_agent", "ask_other_agent",
                                          "answer_other_agent", "answer_other_agent",
                                          "list_active_sub_agents"]))
        if name == "ask_master":
            return name, {"question": "which branch?", "question_id": self._fresh("ask_sa")}
        if name == "ask_other_agent":
            prefix = data.draw(st.sampled_from(["ask_sa", "msg_sa"]))
            return name, {"target_agent_id": target["agent_id"], "role_id": target["role_id"],
                          "content": "fields?", "message_id": self._fresh(prefix)}
        if name == "answer_other_agent":
            return name, {"source_agent_id": target["agent_id"], "role_id": target["role_id"],
                          "message_id": data.draw(known), "answer": "see api.md"}
        return name, {}

    @precondition(lambda self: bool(self.thinking()))
    @rule(data=st.data())
    def reply(self, data: st.DataObject) -> None:
        agent = data.draw(st.sampled_from(self.thinking()))
        text = data.draw(st.sampled_from(TEXTS))
        calls = []
        for _ in range(data.draw(st.sampled_from([0, 1, 1, 2]))):
            name, args = self._call(agent, data)
            self.calls += 1
            calls.append(ToolCall(f"call_{self.calls}", name, json.dumps(args)))
        self.puppets[agent].reply(Reply(text, tuple(calls)))
        self.settle()

    @precondition(lambda self: self.session.core.state(LEADER)
                  in (AgentState.IDLE, AgentState.COMPLETED))
    @rule()
    def user_asks_again(self) -> None:
        self.loop.run_until_complete(self.session.start("and now?"))
        self.settle()

    @rule()
    def time_passes(self) -> None:
        async def tick() -> None:  # timers fire on the loop, as in run_until_idle
            self.clock.advance()

        self.loop.run_until_complete(tick())
        self.settle()

    # -- the checks
    @invariant()
    def conversations_hold_exactly_the_cores_deliveries(self) -> None:
        core = RoutingCore(max_ask_rounds=self.session.core.max_ask_rounds)
        asks = {(e.agent, e.call_id) for e in self.fed if isinstance(e, ToolCallBlocked)}
        expected: dict[str, list[tuple[str, str]]] = {}
        kinds: set[str] = set()
        for fed in self.fed:
            for action in core.handle(fed):
                kinds.add(type(action).__name__ if not isinstance(action, FailToolCall)
                          else f"FailToolCall:{action.code}")
                if isinstance(action, (StartTurn, AppendInline)):
                    expected.setdefault(action.agent, []).extend(
                        ("user", m.text) for m in action.messages)
                elif isinstance(action, ResolveToolCall):
                    expected.setdefault(action.agent, []).append(("tool", action.text))
                elif isinstance(action, FailToolCall) and (action.agent, action.call_id) in asks:
                    expected.setdefault(action.agent, []).append(
                        ("tool", error_result(action.code, action.message, action.candidates)))
        for name, conversation in self.session.conversations.items():
            ask_calls = {c for a, c in asks if a == name}
            actual = [(m["role"], m["content"]) for m in conversation
                      if (m["role"] == "user" and is_envelope(m["content"]))
                      or (m["role"] == "tool" and m["tool_call_id"] in ask_calls)]
            assert actual == expected.get(name, []), name
        assert core.records() == self.session.core.records()
        for kind in sorted(kinds):
            event(kind)  # coverage, shown by --hypothesis-show-statistics

    @invariant()
    def session_and_core_agree_on_who_runs(self) -> None:
        core = self.session.core
        for name in self.thinking():
            assert core.state(name) is AgentState.RUNNING, name
        for name, _ in self.session._waiters:
            assert core.state(name) is AgentState.WAITING, name
        for record in core.records():
            if record.state is AgentState.WAITING:
                assert record.ask is not None
                assert (record.name, record.ask.call_id) in self.session._waiters

    @invariant()
    def the_store_holds_what_the_session_shows(self) -> None:
        assert self.store.conversations() == self.session.conversations
        snapshot = self.store.load()
        assert {m.id for m in snapshot.pending} == {
            m.id for r in self.session.core.records() for m in self.session.core.pending(r.name)}

    @invariant()
    def the_linter_finds_no_fault_of_the_router(self) -> None:
        # Once nothing is in flight, the transcript must lint clean of everything the router
        # answers for: envelopes, placement, ids, results, deliveries and their order. What
        # the models did wrong (bad calls, chosen ids, content) is theirs, and lint says so.
        core = self.session.core
        if self.thinking() or any(core.pending(r.name) for r in core.records()):
            return
        found = [(f.rule, f.agent, f.index, f.message)
                 for f in lint_value(self.session.bundle()).findings
                 if f.rule not in MODEL_FAULTS and not f.rule.startswith("TW6")]
        assert found == []

    @invariant()
    def every_finished_tool_call_has_one_result(self) -> None:
        for conversation in self.session.conversations.values():
            results = [m["tool_call_id"] for m in conversation if m["role"] == "tool"]
            assert len(results) == len(set(results))


RuntimeAgainstCore.TestCase.settings = settings(max_examples=80, stateful_step_count=30,
                                                deadline=None)
TestRuntimeAgainstCore = RuntimeAgainstCore.TestCase
