"""A snapshot of a routing core's state in memory, to roll the core back to when the store
actions of the events handled since could not be committed (TW-DUR-007)."""

from __future__ import annotations

import copy
from collections import deque
from typing import TYPE_CHECKING, Any

from teamwire.envelope import IdAllocator

if TYPE_CHECKING:
    from teamwire.router.core import RoutingCore


class Checkpoint:
    """The state of a ``RoutingCore`` at one moment (see ``RoutingCore.checkpoint``)."""

    __slots__ = ("_agents", "_alloc", "_asks", "_awaiting", "_ids", "_questions",
                 "_received", "_role_names", "_seq")

    def __init__(self, core: RoutingCore) -> None:
        self._agents = [(a, a.state, a.ask, tuple(a.rounds.items()), a.turns, a.tool_calls,
                         a.task_id, tuple(a.queue), len(a.results))
                        for a in core._agents.values()]
        self._role_names = tuple(core._role_names.items())
        self._ids = len(core._ids)
        self._questions = len(core._questions)
        self._received = len(core._received)
        self._alloc = _copy_allocator(core._alloc)
        self._seq = core._seq
        self._asks = tuple(core._asks_by_question.items())
        self._awaiting = tuple((k, tuple(v)) for k, v in core._awaiting_output.items())

    def restore(self, core: RoutingCore) -> None:
        """Put ``core`` back into this state."""
        agents = core._agents
        while len(agents) > len(self._agents):  # agents are only ever added
            agents.popitem()
        for (agent, state, ask, rounds, turns, tool_calls, task_id, queue,
             results) in self._agents:
            agent.state, agent.ask, agent.rounds = state, ask, dict(rounds)
            agent.turns, agent.tool_calls, agent.task_id = turns, tool_calls, task_id
            agent.queue = deque(queue)
            _truncate(agent.results, results)
        core._role_names = dict(self._role_names)
        _truncate(core._ids, self._ids)
        _truncate(core._questions, self._questions)
        _truncate(core._received, self._received)
        core._alloc = _copy_allocator(self._alloc)
        core._seq = self._seq
        core._asks_by_question = dict(self._asks)
        core._awaiting_output = {k: deque(v) for k, v in self._awaiting}


def _truncate(grown: dict[Any, Any], length: int) -> None:
    """Drop the newest entries of an insertion-ordered dict that only ever gains keys."""
    while len(grown) > length:
        grown.popitem()


def _copy_allocator(alloc: IdAllocator) -> IdAllocator:
    """A copy of ``alloc`` whose counters move independently (its attributes are small)."""
    copied = copy.copy(alloc)
    for name, value in vars(alloc).items():
        setattr(copied, name, copy.copy(value))
    return copied
