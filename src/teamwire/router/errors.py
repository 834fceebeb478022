"""Errors of the routing core."""

from __future__ import annotations


class LocalProtocolError(Exception):
    """An event that is illegal for the state the core is in.

    Raised by ``RoutingCore.handle`` before anything changes: after the
    exception the core is exactly as it was. It signals a bug in the code that
    feeds the core (the runtime or an embedding application), not a fault of a
    model: a model's bad request becomes an error tool result instead.
    """


class TargetError(Exception):
    """A tool call named an agent that cannot be reached.

    ``code`` is the error code of the common error result (``unknown-agent``,
    ``ambiguous-agent-id``, ``agent-terminated``); ``candidates`` lists the
    instances an ambiguous agent_id could mean.
    """

    def __init__(self, code: str, message: str,
                 candidates: tuple[tuple[int, str, str], ...] = ()) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.candidates = candidates
        """(agent_id, role_id, display_name) for each candidate."""


class StoreFailure(Exception):
    """The store could not commit a transaction; the session was rolled back to its last commit.

    Nothing of the failed transaction happened: the core, the conversations
    and the event log are as they were after the last successful commit
    (TW-DUR-007). ``__cause__`` is the store's own exception.
    """


STORE_FAILED = "store-failed"
"""Error code of a tool call whose effects could not be stored (TW-DUR-007)."""

TURN_ENDED = "turn-ended"
"""Error code of a call of a reply that never ran because the turn ended first (TW-ROUTE-018)."""
