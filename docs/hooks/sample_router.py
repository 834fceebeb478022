"""The router the site's sample certification report certifies: the reference router with one
mistake a router author could make. A message that reaches a sub-agent while it runs is
acknowledged as delivered inline, but never put into the sub-agent's conversation, so the
steer is lost (TW-ROUTE-008). Certified in process:

    teamwire certify --in-process docs/hooks/sample_router.py:forgets_inline_messages
"""

from __future__ import annotations

from teamwire.conformance.inprocess import reference_factory
from teamwire.router.actions import Action, AppendInline
from teamwire.router.runtime import Session


class _ForgetsInlineMessages(Session):
    def _place(self, actions: list[Action]) -> None:
        super()._place([action for action in actions if not isinstance(action, AppendInline)])


forgets_inline_messages = reference_factory(_ForgetsInlineMessages)
