"""Tool calls that name a sub-agent that is not there, or not only one (TW-TOOL-027 to
TW-TOOL-029), and the role catalog (TW-TOOL-018, TW-TOOL-019)."""

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

from teamwire.conformance.matching import ANY_ORDER, FURTHER_MEMBERS, IF_PRESENT


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


CODER = {"role_id": "coder", "name": "Coder", "description": "Writes the code.",
         "prompt": "You are a Coder."}
CODER_TASK = "Write the code. [tw:cod1]"


def custom_roles_and_creation_errors() -> dict[str, Any]:
    def custom(call_id: str, arguments: dict[str, Any]) -> dict[str, Any]:
        return {"id": call_id, "name": "create_custom_agent", "arguments": arguments}

    return scenario(
        "custom-roles-and-creation-errors",
        "A role created with create_custom_agent gives sub-agents of its name; a second role "
        "of that id, a role id that is no role id, an unknown role and an agent_id its role "
        "already has each fail with their own code",
        ["TW-TOOL-007", "TW-TOOL-008", "TW-TOOL-018", "TW-TOOL-033", "TW-TOOL-036",
         "TW-NAME-008", "TW-NAME-010", "TW-ID-006"],
        [agent(TL, calls(custom("call_tl_1", CODER), custom("call_tl_2", CODER),
                         custom("call_tl_3", {**CODER, "role_id": "bad id", "name": "Bad"}),
                         call("call_tl_4", "create_sub_agent", agent_id=1, role_id="designer",
                              task="Design it."),
                         call("call_tl_5", "create_sub_agent", agent_id=1, role_id="coder",
                              task=CODER_TASK),
                         call("call_tl_6", "create_sub_agent", agent_id=1, role_id="coder",
                              task="Write it again.")),
               says("Waiting."), says("Code noted.")),
         {"name": "Coder_1", "token": "[tw:cod1]", "replies": [says("Code written.")]}],
        schedule((TL, 1), (TL, 2), ("Coder_1", 1), (TL, 3)),
        [expect(TL, 2, tool("call_tl_1", {"success": True, "role_id": "coder", "name": "Coder"}),
                tool("call_tl_2", failed("role-exists")),
                tool("call_tl_3", failed("invalid-name")),
                tool("call_tl_4", failed("unknown-role")),
                tool("call_tl_5", {"success": True, "agent_id": 1, "role_id": "coder",
                                   "display_name": "Coder_1",
                                   "status": {IF_PRESENT: "running"},
                                   "task_id": "task_001"}),
                tool("call_tl_6", failed("duplicate-id")),
                requirements=("TW-TOOL-007", "TW-TOOL-008", "TW-TOOL-018", "TW-TOOL-033",
                              "TW-TOOL-036", "TW-NAME-008", "TW-NAME-010")),
         expect("Coder_1", 1, envelope(TL, "任务发布", "task_001", "Task", CODER_TASK),
                requirements=("TW-TOOL-007", "TW-TOOL-018")),
         expect(TL, 3, envelope("Coder_1", "任务完成汇报", "out_c_001", "Output",
                                "Code written."),
                requirements=("TW-ID-006", "TW-TOOL-018"))])


def listed(role_id: str, name: str, description: str) -> dict[str, Any]:
    """One role as list_agents gives it: the members TW-TOOL-019 names, and whatever else a
    router says of a role."""
    return {"role_id": role_id, "name": name, "description": description,
            FURTHER_MEMBERS: True}


PRESET = [listed("ui-operator", "UI Operator", "Designs and builds user interfaces."),
          listed("full-stack-engineer", "Full-Stack Engineer",
                 "Builds APIs, services and their front-end wiring.")]
"""The catalog of spec/certification/preset-roles.json, which every scenario starts with."""


def role_catalog() -> dict[str, Any]:
    return scenario(
        "role-catalog",
        "list_agents lists the roles of the catalog the router was started with, and a role "
        "created with create_custom_agent beside them",
        ["TW-TOOL-019", "TW-TOOL-018", "TW-CERT-017"],
        [agent(TL, calls(call("call_tl_1", "list_agents")),
               calls({"id": "call_tl_2", "name": "create_custom_agent", "arguments": CODER},
                     call("call_tl_3", "list_agents")),
               says("Three roles.")),
         ],
        schedule((TL, 1), (TL, 2), (TL, 3)),
        [expect(TL, 2, tool("call_tl_1", {"success": True, "roles": {ANY_ORDER: PRESET}})),
         expect(TL, 3, tool("call_tl_2", {"success": True, "role_id": "coder", "name": "Coder"}),
                tool("call_tl_3", {"success": True, "roles": {ANY_ORDER: [
                    *PRESET, listed("coder", "Coder", "Writes the code.")]}}))])


SCENARIOS = [unknown_agent, ambiguous_agent_id, custom_roles_and_creation_errors, role_catalog]
