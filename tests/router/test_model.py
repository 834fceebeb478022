"""The routing core against a simple model of queues and states (hypothesis stateful test).

TW-ROUTE-005 to TW-ROUTE-011, TW-ROUTE-015, TW-ROUTE-030, TW-DEL-001, TW-DEL-002, TW-DEL-003.
"""

from __future__ import annotations

from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from teamwire.envelope import MessageType
from teamwire.router import (
    Action,
    AgentCreated,
    AnswerGiven,
    AppendInline,
    FailToolCall,
    MessageSent,
    ModelCallStarted,
    OutputEmitted,
    PersistMessage,
    ResolveToolCall,
    RoutingCore,
    StartTurn,
    ToolCallBlocked,
    TurnEnded,
    TurnStarted,
)
from teamwire.router.core import UNANSWERED_ASKS
from tests.router.helpers import FSE, LEADER, UIO

SUBS = (UIO, FSE)
AGENTS = (LEADER, *SUBS)


class RouterModel(RuleBasedStateMachine):
    """Plain lists and strings: what the routing chapter says should happen."""

    def __init__(self) -> None:
        super().__init__()
        self.core = RoutingCore()
        self.fail_unanswered = False
        self.state = {name: "idle" for name in AGENTS}
        self.queue: dict[str, list[str]] = {name: [] for name in AGENTS}
        self.expected: dict[str, list[str]] = {name: [] for name in AGENTS}
        self.actual: dict[str, list[str]] = {name: [] for name in AGENTS}
        self.asks: dict[str, str] = {}
        self.calls = 0

    @initialize(unanswered=st.sampled_from(UNANSWERED_ASKS))
    def setting(self, unanswered: str) -> None:
        """The agents, in a core with either value of the setting unanswered_asks
        (TW-ROUTE-030)."""
        self.fail_unanswered = unanswered == "fail"
        self.core = RoutingCore(unanswered_asks=unanswered)
        for name, role in ((LEADER, "team-leader"), (UIO, "ui-operator"),
                           (FSE, "full-stack-engineer")):
            self.feed(AgentCreated(name, role))

    # -- plumbing
    def feed(self, event: object) -> list[Action]:
        actions = self.core.handle(event)  # type: ignore[arg-type]
        for action in actions:
            if isinstance(action, (StartTurn, AppendInline)):
                self.actual[action.agent].extend(m.id for m in action.messages)
        return actions

    def accept(self, receiver: str, actions: list[Action]) -> None:
        """Model side of accepting the new message(s) in ``actions`` for ``receiver``."""
        for action in actions:
            if isinstance(action, PersistMessage) and action.message.receiver == receiver:
                self.queue[receiver].append(action.message.id)
        if self.state[receiver] in ("idle", "completed") and self.queue[receiver]:
            self.deliver(receiver)
            self.state[receiver] = "running"

    def deliver(self, agent: str) -> None:
        self.expected[agent].extend(self.queue[agent])
        self.queue[agent].clear()

    # -- rules
    @precondition(lambda self: self.state[LEADER] in ("idle", "completed"))
    @rule()
    def leader_starts(self) -> None:
        self.feed(TurnStarted(LEADER))
        self.state[LEADER] = "running"

    @precondition(lambda self: self.state[LEADER] == "running")
    @rule(sub=st.sampled_from(SUBS), kind=st.sampled_from([MessageType.TASK,
                                                            MessageType.MESSAGE]))
    def leader_sends(self, sub: str, kind: MessageType) -> None:
        self.calls += 1
        self.accept(sub, self.feed(MessageSent(LEADER, sub, kind, "x", call_id=f"c{self.calls}")))

    @rule(agent=st.sampled_from(AGENTS))
    def model_call(self, agent: str) -> None:
        if self.state[agent] != "running":
            return
        self.feed(ModelCallStarted(agent))
        self.deliver(agent)

    @rule(sub=st.sampled_from(SUBS), final=st.booleans())
    def output(self, sub: str, final: bool) -> None:
        if self.state[sub] != "running":
            return
        self.accept(LEADER, self.feed(OutputEmitted(sub, "out", final=final)))
        if final:
            self.state[sub] = "closing"

    @rule(agent=st.sampled_from(AGENTS))
    def turn_ends(self, agent: str) -> None:
        if self.state[agent] not in ("running", "closing"):
            return
        self.feed(TurnEnded(agent))
        if agent == LEADER and self.fail_unanswered:
            # TW-ROUTE-030: asks the leader received and left unanswered end
            for sub, question in list(self.asks.items()):
                if question in self.expected[LEADER]:
                    del self.asks[sub]
                    self.state[sub] = "running"
        if self.queue[agent]:
            self.deliver(agent)
            self.state[agent] = "running"
        else:
            self.state[agent] = "completed"

    @rule(sub=st.sampled_from(SUBS))
    def ask_master(self, sub: str) -> None:
        if self.state[sub] != "running":
            return
        self.calls += 1
        question = f"ask_x_{self.calls:03d}"
        actions = self.feed(ToolCallBlocked(sub, f"c{self.calls}", LEADER, question, "?"))
        self.state[sub] = "waiting"
        self.asks[sub] = question
        self.accept(LEADER, actions)

    @rule(sub=st.sampled_from(SUBS))
    def leader_answers(self, sub: str) -> None:
        if self.state[LEADER] != "running" or sub not in self.asks:
            return
        question = self.asks[sub]
        actions = self.feed(AnswerGiven(LEADER, sub, question, "a"))
        if question not in self.expected[LEADER]:  # not received yet: nothing to answer
            assert [a.code for a in actions if isinstance(a, FailToolCall)] \
                == ["unknown-question"]
            return
        del self.asks[sub]
        assert [a.agent for a in actions if isinstance(a, ResolveToolCall)] == [sub]
        self.state[sub] = "running"

    # -- invariants
    @invariant()
    def states_agree(self) -> None:
        for name in AGENTS:
            assert self.core.state(name).value == self.state[name], name

    @invariant()
    def queues_and_deliveries_agree(self) -> None:
        for name in AGENTS:
            assert [m.id for m in self.core.pending(name)] == self.queue[name]
            assert self.actual[name] == self.expected[name]
            assert len(set(self.actual[name])) == len(self.actual[name])  # no duplicates


RouterModel.TestCase.settings = settings(max_examples=60, stateful_step_count=40)
TestRouterModel = RouterModel.TestCase
