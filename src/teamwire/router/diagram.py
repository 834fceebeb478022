"""The state diagram of the routing core, generated from the transition table."""

from __future__ import annotations

from teamwire.router.states import AgentState, Delivery
from teamwire.router.table import ANSWER_RESOLVES, DELIVERY, ENDS_WITH_PENDING, TRANSITIONS


def edges() -> dict[tuple[AgentState, AgentState], list[str]]:
    """Every state change with the labels of what causes it (self-loops left out)."""
    found: dict[tuple[AgentState, AgentState], list[str]] = {}

    def add(source: AgentState, target: AgentState, label: str) -> None:
        if source is target:
            return
        labels = found.setdefault((source, target), [])
        if label not in labels:
            labels.append(label)

    for (state, event), outcomes in TRANSITIONS.items():
        for outcome in sorted(outcomes, key=_order):
            add(state, outcome, event.__name__)
    for state, (delivery, after) in DELIVERY.items():
        if delivery is Delivery.NEW_TURN:
            add(state, after, "message arrives")
    waiting, resumed = ANSWER_RESOLVES
    add(waiting, resumed, "answer / timeout / target terminated")
    for state in sorted(ENDS_WITH_PENDING[0], key=_order):
        add(state, ENDS_WITH_PENDING[1], "pending messages")
    return dict(sorted(found.items(), key=lambda item: (_order(item[0][0]), _order(item[0][1]))))


def mermaid() -> str:
    """A mermaid ``stateDiagram-v2`` of every state change in the table."""
    lines = ["stateDiagram-v2"]
    for (source, target), labels in edges().items():
        start = "[*]" if source is AgentState.ABSENT else source.value
        lines.append(f"    {start} --> {target.value}: {', '.join(labels)}")
    return "\n".join(lines)


def _order(state: AgentState) -> int:
    return list(AgentState).index(state)
