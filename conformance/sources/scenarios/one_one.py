"""Behaviours that version 1.1 of the specification changed or defined, which a router built
for 1.0 gets wrong while it passes every other scenario: each scenario here fails such a
router on the rule it misses."""

from __future__ import annotations

from typing import Any

from conformance.sources.scenarios.blocks import (
    FSE,
    FSE_TASK,
    TL,
    UIO,
    UIO_TASK,
    agent,
    call,
    calls,
    create,
    envelope,
    expect,
    says,
    scenario,
    schedule,
    tool,
)
from conformance.sources.scenarios.routing import output

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


def unanswered_spares_a_queued_ask() -> dict[str, Any]:
    question = "Which port?"
    return scenario(
        "unanswered-spares-a-queued-ask",
        "With unanswered_asks set to fail, the Team Leader's ask that reaches a sub-agent "
        "during its final reply waits in its queue: the end of that turn leaves it pending, "
        "and the turn the queue starts delivers it and answers it",
        ["TW-ROUTE-030", "TW-ROUTE-011", "TW-TOOL-036", "TW-CERT-005"],
        [agent(TL, calls(create("call_tl_1", "full-stack-engineer", FSE_TASK)),
               calls(call("call_tl_2", "ask_sub_agent", agent_id=1, question=question,
                          question_id="ask_tl_001")),
               says("Port noted.")),
         agent(FSE, says("The API is done."), says("Port 8080."))],
        # the engineer's first call is held until the ask has reached the router; settle
        # gives the router time to run the ask before the engineer's reply comes
        schedule((TL, 1), (FSE, 1, "await"), (TL, 2), (FSE, 1), (FSE, 2), (TL, 3)),
        [expect(FSE, 2, envelope(TL, "提问", "ask_tl_001", "Ask", question)),
         expect(TL, 3, tool("call_tl_2", envelope(
             FSE, "回答", "ans_fse_001", "Answer", "Port 8080.",
             (("question_id", "ask_tl_001"),))["content"]),
                output(FSE, "out_fse_001", "The API is done."))],
        knobs={"unanswered_asks": "fail"}, settle=0.5)


SCENARIOS.append(unanswered_spares_a_queued_ask)
