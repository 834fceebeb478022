"""An invalid-arguments result tells the model what to fix.

TW-TOOL-023 (``NaN``, ``Infinity`` and ``-Infinity`` are not JSON, whatever a JavaScript
serializer writes), TW-TOOL-032 (the message is a non-empty explanation for the model): the
message names the constant that made the text invalid, so the model can send a number.
"""

from __future__ import annotations

import pytest

from teamwire.router.runtime.arguments import argument_problem


@pytest.mark.parametrize("constant", ["NaN", "Infinity", "-Infinity"])
def test_a_constant_that_is_not_json_is_named(constant: str) -> None:
    arguments, problem = argument_problem(
        "send_message_to_sub_agent", f'{{"agent_id": {constant}, "message": "m"}}')
    assert arguments is None
    assert problem is not None and f"{constant} is not a JSON value" in problem


def test_a_constant_after_a_repeated_member_is_named_too() -> None:
    """TW-TOOL-038 and TW-TOOL-023 together: the text is not JSON at all, and says why."""
    arguments, problem = argument_problem(
        "send_message_to_sub_agent", '{"agent_id": 1, "agent_id": 1, "message": NaN}')
    assert arguments is None
    assert problem is not None and "NaN is not a JSON value" in problem
