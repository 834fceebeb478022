"""A router process for the SIGKILL test: restores from SQLite, then routes a seeded workload.

Usage: python -m tests.router.kill_child DB SEED [--drain]

It prints ``pending ID`` before committing a message, ``ack ID`` after the
commit, and ``deliver RECEIVER ID`` after the commit of each delivery. With
``--drain`` it delivers everything still queued and exits.
"""

from __future__ import annotations

import random
import sys

from teamwire.envelope import MessageType
from teamwire.router import (
    AgentCreated,
    AgentState,
    AppendInline,
    MessageSent,
    ModelCallStarted,
    OutputEmitted,
    PersistMessage,
    Restarted,
    RoutingCore,
    StartTurn,
    TurnEnded,
    TurnStarted,
)
from teamwire.router.actions import Action
from teamwire.router.events import Event
from teamwire.router.store import SQLiteStore

LEADER = "Team Leader"
SUBS = ["UI Operator_1", "Full-Stack Engineer_1", "UI Operator_2"]
ROLES = {"UI Operator_1": "ui-operator", "Full-Stack Engineer_1": "full-stack-engineer",
         "UI Operator_2": "ui-operator"}


def main(argv: list[str]) -> int:
    store = SQLiteStore(argv[0], synchronous="normal")
    rng = random.Random(int(argv[1]))
    core = RoutingCore()

    def step(event: Event) -> None:
        actions: list[Action] = core.handle(event)
        new = [a.message.id for a in actions if isinstance(a, PersistMessage)]
        for message_id in new:
            print("pending", message_id, flush=True)
        store.apply(actions)
        for message_id in new:
            print("ack", message_id, flush=True)
        for action in actions:
            if isinstance(action, (StartTurn, AppendInline)):
                for message in action.messages:
                    print("deliver", action.agent, message.id, flush=True)

    snapshot = store.load()
    if snapshot.agents:
        step(Restarted(snapshot))
    else:
        step(AgentCreated(LEADER, "team-leader"))
        for name in SUBS:
            step(AgentCreated(name, ROLES[name]))
    if core.state(LEADER) in (AgentState.IDLE, AgentState.COMPLETED):
        step(TurnStarted(LEADER))

    if "--drain" in argv:
        while any(core.pending(name) for name in [LEADER, *SUBS]):
            for name in [LEADER, *SUBS]:
                state = core.state(name)
                if state is AgentState.RUNNING:
                    step(ModelCallStarted(name))
                elif state is AgentState.CLOSING:
                    step(TurnEnded(name))
        return 0

    for _ in range(100_000):
        roll = rng.random()
        sub = rng.choice(SUBS)
        state = core.state(sub)
        if roll < 0.45:
            step(MessageSent(LEADER, sub, MessageType.MESSAGE, f"note {rng.random():.6f}"))
        elif roll < 0.65 and state is AgentState.RUNNING:
            step(ModelCallStarted(sub))
        elif roll < 0.75 and state is AgentState.RUNNING:
            step(OutputEmitted(sub, "progress"))
        elif roll < 0.82 and state is AgentState.RUNNING:
            step(OutputEmitted(sub, "done", final=True))
        elif roll < 0.9 and state is AgentState.CLOSING:
            step(TurnEnded(sub))
        elif roll >= 0.9:
            step(ModelCallStarted(LEADER))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
