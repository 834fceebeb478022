"""Tool calls that name a sub-agent that is not there, or not only one (TW-TOOL-027 to
TW-TOOL-029)."""

from __future__ import annotations

from typing import Any

from conformance.sources.scenarios.asks import failed
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


def unknown_agent() -> dict[str, Any]:
    return scenario(
        "unknown-agent",
        "A message to an agent_id no sub-agent has fails with unknown-agent",
        ["TW-TOOL-027", "TW-TOOL-032"],
        [agent(TL, calls(call("call_tl_1", "send_message_to_sub_agent", agent_id=7,
                              message="Hello?")),
               says("There is no such agent."))],
        schedule((TL, 1), (TL, 2)),
        [expect(TL, 2, tool("call_tl_1", failed("unknown-agent")))])


def ambiguous_agent_id() -> dict[str, Any]:
    result = failed("ambiguous-agent-id")
    result["error"]["candidates"] = [
        {"agent_id": 1, "role_id": "ui-operator", "display_name": UIO},
        {"agent_id": 1, "role_id": "full-stack-engineer", "display_name": FSE}]
    return scenario(
        "ambiguous-agent-id",
        "An agent_id that two roles both have, given without role_id, fails with "
        "ambiguous-agent-id and lists the candidates in creation order; nothing is sent",
        ["TW-TOOL-027", "TW-TOOL-029", "TW-TOOL-026"],
        [agent(TL, calls(create("call_tl_1", "ui-operator", UIO_TASK),
                         create("call_tl_2", "full-stack-engineer", FSE_TASK)),
               calls(call("call_tl_3", "send_message_to_sub_agent", agent_id=1,
                          message="Which of you?")),
               says("Ambiguous."), says("Form noted."), says("API noted.")),
         agent(UIO, says("The form is designed.")),
         agent(FSE, says("The API is written."))],
        schedule((TL, 1), (TL, 2), (TL, 3), (UIO, 1), (TL, 4), (FSE, 1), (TL, 5)),
        [expect(TL, 3, tool("call_tl_3", result)),
         expect(TL, 4, envelope(UIO, "任务完成汇报", "out_uio_001", "Output",
                                "The form is designed.")),
         expect(TL, 5, envelope(FSE, "任务完成汇报", "out_fse_001", "Output",
                                "The API is written."))])


SCENARIOS = [unknown_agent, ambiguous_agent_id]
