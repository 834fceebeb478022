"""Why ``format_display_name`` refuses a name (TW-NAME-001, TW-NAME-002).

A host that builds display names from a role name and an instance number shows the
``InvalidNameError`` message to whoever asked for the name; the message says what was
wrong and with which value.
"""

from __future__ import annotations

import pytest

from teamwire.envelope import InvalidNameError, format_display_name


@pytest.mark.parametrize(("role", "agent_id", "message"), [
    ("UI Operator", 0, "instance number must be >= 1, got 0"),
    ("UI Operator", -2, "instance number must be >= 1, got -2"),
    ("UI Operator", None, "only the leader has no instance number"),
])
def test_the_message_says_what_is_wrong(role: str, agent_id: int | None, message: str) -> None:
    with pytest.raises(InvalidNameError) as caught:
        format_display_name(role, agent_id)
    assert str(caught.value) == message
