"""The routing states of an agent."""

from __future__ import annotations

import enum


class AgentState(str, enum.Enum):
    """Where an agent stands, as far as routing is concerned.

    The five states of the specification are ``idle``, ``running``, ``waiting``,
    ``completed`` and ``terminated``. The core adds two of its own: ``absent``
    (no agent of that name exists yet; only creation or restoration is legal)
    and ``closing`` (running, but the model's last reply of the turn carried no
    tool call, so nothing more can be inlined; reported as ``running``).
    """

    ABSENT = "absent"
    IDLE = "idle"
    RUNNING = "running"
    CLOSING = "closing"
    WAITING = "waiting"
    COMPLETED = "completed"
    TERMINATED = "terminated"

    @property
    def status(self) -> str:
        """The specification's name for this state (``closing`` reads as ``running``)."""
        return "running" if self is AgentState.CLOSING else self.value


class Delivery(str, enum.Enum):
    """How a message reaches its receiver, decided by the receiver's state."""

    NEW_TURN = "new_turn"
    """The receiver was idle or completed: the message starts a turn."""
    INLINE = "inline"
    """The receiver is running: the message joins its conversation before its next model call
    (or, if the running turn is ending, starts the next turn)."""
    QUEUED = "queued"
    """The receiver waits in an ask: the message waits in its queue until the ask resolves."""
    REJECTED = "rejected"
    """The receiver is terminated: the sender gets an error result."""
