"""The reference router with one mistake made on purpose, for certification in process
(``teamwire certify --in-process tests/conformance/routers/broken_inprocess.py:drop_inline``).

- ``drop_inline``: a message that reaches a running agent is routed (the sender is told it
  went inline) but never put into the receiver's conversation (TW-ROUTE-008 broken);
- ``newest_first``: the messages of one delivery are put into the conversation newest first
  (TW-ROUTE-005, TW-ROUTE-008 broken).
"""

from __future__ import annotations

from dataclasses import replace

from teamwire.conformance.inprocess import reference_factory
from teamwire.router.actions import Action, AppendInline, StartTurn
from teamwire.router.runtime import Session


class _DropsInline(Session):
    def _place(self, actions: list[Action]) -> None:
        super()._place([a for a in actions if not isinstance(a, AppendInline)])


class _NewestFirst(Session):
    def _place(self, actions: list[Action]) -> None:
        turned: list[Action] = []
        for action in actions:
            if isinstance(action, (AppendInline, StartTurn)) and len(action.messages) > 1:
                action = replace(action, messages=tuple(reversed(action.messages)))
            turned.append(action)
        super()._place(turned)


drop_inline = reference_factory(_DropsInline)
newest_first = reference_factory(_NewestFirst)
