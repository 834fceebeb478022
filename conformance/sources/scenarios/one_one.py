"""Behaviours that version 1.1 of the specification changed or defined, which a router built
for 1.0 gets wrong while it passes every other scenario: each scenario here fails such a
router on the rule it misses."""

from __future__ import annotations

from typing import Any

from conformance.sources.scenarios.blocks import (
    TL,
    UIO,
    UIO_TASK,
    agent,
    call,
    calls,
    create,
    expect,
    says,
    scenario,
    schedule,
    tool,
)

LINE = "Form\u2028ready: " + "\U0001d405" * 130
"""A first line of 142 code points, 272 UTF-16 units: a U+2028, which ends no line here, and
astral letters, so that a cut after 120 UTF-16 units or at any line break a language knows
gives another summary than 120 code points up to the first LF or CR."""


def listed(summary: str) -> dict[str, Any]:
    """list_active_sub_agents with UI Operator_1 alone, its turn over."""
    return {"success": True, "agents": [{"agent_id": 1, "role_id": "ui-operator",
                                         "display_name": UIO, "status": "completed",
                                         "summary": summary}]}


def summary_of_the_latest_text() -> dict[str, Any]:
    summary = LINE[:120]
    return scenario(
        "summary-of-the-latest-text",
        "list_active_sub_agents gives a sub-agent's summary as its latest natural output up to "
        "the first LF or CR, cut to 120 code points (astral letters count one each, a U+2028 "
        "ends no line); a later turn that ends with blank text leaves the summary as it was",
        ["TW-TOOL-015", "TW-TYPE-017"],
        [agent(TL, calls(create("call_tl_1", "ui-operator", UIO_TASK)), says("Waiting."),
               calls(call("call_tl_2", "list_active_sub_agents")),
               calls(call("call_tl_3", "send_message_to_sub_agent", agent_id=1,
                          message="Anything to add?")),
               says("Sent."),
               calls(call("call_tl_4", "list_active_sub_agents")), says("Done.")),
         agent(UIO, says(f"{LINE}\r\nThe second line."), says(" \n\t "))],
        schedule((TL, 1), (TL, 2), (UIO, 1), (TL, 3), (TL, 4), (TL, 5), (UIO, 2), (TL, 6),
                 (TL, 7)),
        [expect(TL, 4, tool("call_tl_2", listed(summary))),
         expect(TL, 7, tool("call_tl_4", listed(summary)))])


SCENARIOS = [summary_of_the_latest_text]
