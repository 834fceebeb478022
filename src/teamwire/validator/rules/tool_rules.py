"""TW4xx: tool calls and their results."""

from __future__ import annotations

import json

from teamwire.schemas.arguments import ProblemKind
from teamwire.validator.facts import (
    AgentCreated,
    CallTarget,
    MissingResult,
    RoleDefined,
    StrayResult,
    ToolCall,
    ToolResult,
)
from teamwire.validator.findings import Severity
from teamwire.validator.registry import Report, Rule, check, rule
from teamwire.validator.rules.examples import call
from teamwire.validator.tooling import ASK_TOOLS, Verdict

E = Severity.ERROR
_LEADER = "Team Leader"
_UIO = "UI Operator_1"
_ARGUMENTS = "/function/arguments"
"""Where a finding about a call's arguments points, below the call."""

INVALID_ARGUMENTS_JSON = rule(
    "TW401", "invalid-arguments-json", E,
    "A protocol tool call's arguments are not a JSON object in a string.",
    requirements=("TW-TOOL-023",),
    rationale="""
Arguments travel as the JSON text of an object. The finding gives the line and column of the
syntax error inside the arguments string. An empty (or white-space) string reads as {}, which
some endpoints send for a call without parameters; missing required parameters are then TW402.""",
    bad=call("ask_master", '{"question": "Which branch model?", "question_id": ask_fse_001}', _UIO),
    good=call("ask_master", '{"question": "Which branch model?", "question_id": "ask_fse_001"}',
              _UIO))

INVALID_ARGUMENTS = rule(
    "TW402", "invalid-arguments", E,
    "A protocol tool call's arguments do not satisfy the tool's schema.",
    requirements=("TW-TOOL-023", "TW-TOOL-024", "TW-TOOL-039", "TW-PROF-026", "TW-PROF-029"),
    rationale="""
Arguments are checked against the tool's JSON Schema (required parameters, types, enums) of the
chosen profile; text parameters (task, message, question, content, answer, and a custom role's
description and prompt, body_prompt under astrion) must not be blank. An argument the tool does
not define is ignored, blank or not (TW-TOOL-025). Arguments may nest objects and arrays at most
64 levels deep, the arguments object being level 1, in any argument.""",
    bad=call("create_sub_agent", '{"role_id": "ui-operator", "task": "Design the palette."}',
             _LEADER),
    good=call("create_sub_agent",
              '{"agent_id": 1, "role_id": "ui-operator", "task": "Design the palette."}',
              _LEADER))

LEADER_TOOL_BY_SUB_AGENT = rule(
    "TW403", "leader-tool-by-sub-agent", E, "A sub-agent calls a Team Leader tool.",
    requirements=("TW-TOOL-003", "TW-TOOL-006"),
    rationale="Only the Team Leader creates, steers and terminates sub-agents.",
    bad=call("create_sub_agent", '{"agent_id": 2, "role_id": "tester", "task": "…"}', _UIO),
    good=call("ask_master", '{"question": "Do we need a tester?", "question_id": "ask_uio_001"}',
              _UIO))

SUB_AGENT_TOOL_BY_LEADER = rule(
    "TW404", "sub-agent-tool-by-leader", E, "The Team Leader calls a sub-agent tool.",
    requirements=("TW-TOOL-003", "TW-TOOL-006"),
    rationale="The leader asks with ask_sub_agent and answers with answer_sub_agent_question.",
    bad=call("ask_other_agent", '{"target_agent_id": 1, "content": "…", "message_id": "ask_tl_001"}',
             _LEADER),
    good=call("ask_sub_agent", '{"agent_id": 1, "question": "…", "question_id": "ask_tl_001"}',
              _LEADER))

REMOVED_TOOL = rule(
    "TW405", "removed-tool", E, "A tool removed in multi-agent mode (close_sub_agent) is called.",
    requirements=("TW-TOOL-004", "TW-TOOL-006"),
    rationale="close_sub_agent belongs to the single-agent design; terminate_sub_agent replaces it.",
    bad=call("close_sub_agent", '{"agent_id": 1}', _LEADER),
    good=call("terminate_sub_agent", '{"agent_id": 1}', _LEADER))

FORBIDDEN_TOOL = rule(
    "TW406", "forbidden-tool", E, "report_progress or finish_task is called.",
    requirements=("TW-TOOL-005", "TW-TYPE-020"),
    rationale="A sub-agent reports by natural output; these tools do not exist in the protocol.",
    bad=call("finish_task", '{"summary": "Done."}', _UIO),
    good="# in the conversation of UI Operator_1\nrole: assistant\nThe palette is done.")

AGENT_ID_REUSED = rule(
    "TW407", "agent-id-reused", E, "create_sub_agent reuses a (role_id, agent_id) pair.",
    requirements=("TW-TOOL-008", "TW-NAME-011", "TW-NAME-007"),
    rationale="""
An agent_id is used once per role for the whole session, terminated agents included, so a
display name always means one agent. The router must fail such a call with duplicate-id.""",
    bad=call("create_sub_agent", '{"agent_id": 1, "role_id": "ui-operator", "task": "A"}', _LEADER)
    + "\n" + call("create_sub_agent", '{"agent_id": 1, "role_id": "ui-operator", "task": "B"}'),
    good=call("create_sub_agent", '{"agent_id": 1, "role_id": "ui-operator", "task": "A"}',
              _LEADER)
    + "\n" + call("create_sub_agent", '{"agent_id": 2, "role_id": "ui-operator", "task": "B"}'))

UNKNOWN_TARGET = rule(
    "TW408", "unknown-target", E, "A targeting call that succeeded names no existing sub-agent.",
    requirements=("TW-TOOL-027", "TW-TOOL-028", "TW-PROF-026"),
    rationale="""
A call to an agent that does not exist must fail with unknown-agent; one that succeeded anyway
sent its message nowhere.""",
    bad=call("send_message_to_sub_agent", '{"agent_id": 7, "message": "…"}', _LEADER)
    + "  → {\"success\": true, …}",
    good=call("send_message_to_sub_agent", '{"agent_id": 7, "message": "…"}', _LEADER)
    + '  → {"success": false, "error": {"code": "unknown-agent", …}}')

TERMINATED_TARGET = rule(
    "TW409", "terminated-target", E, "A call to a terminated sub-agent succeeded.",
    requirements=("TW-TOOL-031", "TW-ROUTE-004"),
    rationale="""
A terminated agent receives nothing; calls to it (other than get_sub_agent_status) must fail
with agent-terminated.""",
    bad=call("terminate_sub_agent", '{"agent_id": 1}', _LEADER) + "\n"
    + call("send_message_to_sub_agent", '{"agent_id": 1, "message": "…"}')
    + '  → {"success": true, …}',
    good=call("terminate_sub_agent", '{"agent_id": 1}', _LEADER) + "\n"
    + call("get_sub_agent_status", '{"agent_id": 1}') + '  → {"success": true, …}')

AMBIGUOUS_TARGET = rule(
    "TW410", "ambiguous-target", E,
    "A call whose agent_id matches sub-agents of two roles succeeded without role_id.",
    requirements=("TW-TOOL-027", "TW-TOOL-029"),
    rationale="""
agent_id numbers instances within a role, so 'agent 1' can mean UI Operator_1 and Full-Stack
Engineer_1. Such a call must fail with ambiguous-agent-id listing the candidates, or name the
role with role_id.""",
    bad=call("send_message_to_sub_agent", '{"agent_id": 1, "message": "…"}', _LEADER)
    + "  → {\"success\": true, …}",
    good=call("send_message_to_sub_agent",
              '{"agent_id": 1, "role_id": "ui-operator", "message": "…"}', _LEADER))

MISSING_TOOL_RESULT = rule(
    "TW411", "missing-tool-result", E, "A tool call gets no result before the next message.",
    requirements=("TW-ROUTE-010", "TW-ROUTE-022", "TW-PROF-025"),
    rationale="""
Every tool call gets exactly one result, directly after the assistant message that made it;
messages that arrive meanwhile are delivered after the results. A call still open at the end of
the conversation is not reported (the agent may be waiting). Under profile astrion, each
stop_sub_agent of the Team Leader that names the sub-agent (and did not fail) excuses one place
where its calls were left open: the stop ended that turn.""",
    bad="assistant calls read_file(…) [id call_1]\nrole: user …",
    good="assistant calls read_file(…) [id call_1]\nrole: tool [call_1] …\nrole: user …")

DUPLICATE_TOOL_RESULT = rule(
    "TW412", "duplicate-tool-result", E, "A tool call gets a second result.",
    requirements=("TW-ROUTE-010",),
    rationale="Each call is answered exactly once.",
    bad="assistant calls read_file(…) [id call_1]\nrole: tool [call_1] …\nrole: tool [call_1] …",
    good="assistant calls read_file(…) [id call_1]\nrole: tool [call_1] …")

ORPHAN_TOOL_RESULT = rule(
    "TW413", "orphan-tool-result", E, "A tool result answers no call.",
    requirements=("TW-ROUTE-010",),
    rationale="A result must name the id of a call made by the preceding assistant message.",
    bad="assistant calls read_file(…) [id call_1]\nrole: tool [call_9] …",
    good="assistant calls read_file(…) [id call_1]\nrole: tool [call_1] …")

DUPLICATE_TOOL_CALL_ID = rule(
    "TW414", "duplicate-tool-call-id", E, "Two tool calls of one conversation share an id.",
    requirements=("TW-ROUTE-010", "TW-DUR-003"),
    rationale="Results are matched to calls by id, so ids must be unique within a conversation.",
    bad="assistant calls read_file(…) [id call_1]\n…\nassistant calls run_command(…) [id call_1]",
    good="assistant calls read_file(…) [id call_1]\n…\nassistant calls run_command(…) [id call_2]")

SELF_TARGET = rule(
    "TW415", "self-target", E, "A call that targets its own caller succeeded.",
    requirements=("TW-TOOL-030",),
    rationale="""
An agent cannot target itself (ask, answer or message itself); such a call must fail with
invalid-arguments. A call still without a result counts as accepted, unless the Team Leader
terminated its caller, whose unrun calls never get one. (Wait-for cycles between different agents
are a separate check.)""",
    bad=call("ask_other_agent", '{"target_agent_id": 1, "content": "…", "message_id": '
             '"ask_uio_001"}', _UIO) + '  → answered',
    good=call("ask_other_agent", '{"target_agent_id": 1, "role_id": "full-stack-engineer", '
              '"content": "…", "message_id": "ask_uio_001"}', _UIO))

INVALID_TOOL_RESULT = rule(
    "TW416", "invalid-tool-result", E,
    "A protocol tool's result is not a success object, an error result or (for asks) an Answer.",
    requirements=("TW-TOOL-032", "TW-TOOL-033", "TW-TOOL-035", "TW-ROUTE-001", "TW-PROF-024",
                  "TW-PROF-028", "TW-PROF-030"),
    rationale="""
A protocol tool returns one JSON object with success true, or the common error result
{"success": false, "error": {"code", "message"}}; an ask tool returns the Answer envelope on
success. The status values of list_active_sub_agents and get_sub_agent_status are routing
states: idle, running, waiting, completed, and terminated for get_sub_agent_status only (a
terminated sub-agent is not listed as active). Profile astrion adds failed and timeout, lists
terminated sub-agents as active, reads the results astrion shows a sub-agent as text by its
table of success texts (TW-PROF-028), and takes an error result whose error is a non-blank text,
as astrion's tools refuse a call, for an error result that names no code (TW-PROF-030).""",
    bad="role: tool (result of send_message_to_sub_agent)\nMessage sent.",
    good='role: tool (result of send_message_to_sub_agent)\n{"success": true, "display_name": '
         '"UI Operator_1", "message_id": "msg_tl_001"}')

ROLE_EXISTS = rule(
    "TW417", "role-exists", E,
    "create_custom_agent succeeded for a role id or name the catalog already has.",
    requirements=("TW-TOOL-018",), profiles=("strict",),
    rationale="""
In profile strict a custom role is new: a role id or name the catalog already has (defined by an
earlier create_custom_agent, or the role of a sub-agent created before) makes the call fail with
role-exists. Profile astrion reads a repeated role id as a replacement of the role for sub-agents
created afterwards (TW-PROF-020), so this rule is off there.""",
    bad=call("create_custom_agent", '{"role_id": "api-designer", "name": "API Designer", …}',
             _LEADER) + "  → succeeded\n" + call(
        "create_custom_agent", '{"role_id": "api-designer", "name": "API Designer", …}',
        _LEADER) + "  → succeeded",
    good=call("create_custom_agent", '{"role_id": "api-designer", "name": "API Designer", …}',
              _LEADER) + "  → succeeded\n" + call(
        "create_custom_agent", '{"role_id": "api-designer", "name": "API Designer", …}',
        _LEADER) + '  → {"success": false, "error": {"code": "role-exists", …}}')

REPEATED_ARGUMENT_NAME = rule(
    "TW418", "repeated-argument-name", E,
    "A protocol tool call's arguments name one member twice in the same object.",
    requirements=("TW-TOOL-038",),
    rationale="""
JSON does not say which value of a repeated name counts: some readers keep the first, others
the last, so the router and a reader of the transcript could act on different arguments. The
router fails such a call with invalid-arguments. Names are compared decoded ("a" and "\\u0061"
are one name), at any depth, also inside an argument the tool does not define; the finding points
at the second occurrence, and no other argument check reads the call's arguments.""",
    bad=call("send_message_to_sub_agent",
             '{"agent_id": 1, "message": "Use the blue palette.", "agent_id": 2}', _LEADER),
    good=call("send_message_to_sub_agent",
              '{"agent_id": 1, "message": "Use the blue palette."}', _LEADER))


@check(DUPLICATE_TOOL_CALL_ID, ToolCall, calls=("repeated",))
def _duplicate_tool_call_id(fact: ToolCall, report: Report[ToolCall]) -> None:
    if fact.repeated:
        report(fact, f"tool call id {fact.call_id!r} is used twice", below="/id")


# Routing states a status result may name (TW-ROUTE-001): list_active_sub_agents lists no
# terminated sub-agent; astrion adds failed and timeout for turns ended so, and lists
# terminated sub-agents too (TW-PROF-024).
_STATUS_TOOLS = frozenset({"list_active_sub_agents", "get_sub_agent_status"})
_STATUSES = {
    (tool, strict): frozenset({"idle", "running", "waiting", "completed"}
                              | ({"terminated"} if tool == "get_sub_agent_status" or not strict
                                 else set())
                              | (set() if strict else {"failed", "timeout"}))
    for tool in _STATUS_TOOLS for strict in (True, False)}


@check(INVALID_TOOL_RESULT, ToolResult, always=True,
       quiet=lambda tool, owner: tool not in _STATUS_TOOLS)
def _invalid_tool_result(fact: ToolResult, report: Report[ToolResult]) -> None:
    value, tool = fact.value, fact.tool
    success = value.get("success") if type(value) is dict else None
    if success is False:
        error = value.get("error")
        if not fact.strict and type(error) is str and error.strip():
            return  # astrion's tools refuse a call with the reason as text (TW-PROF-030)
        if not (type(error) is dict and type(error.get("code")) is str
                and type(error.get("message")) is str):
            report(fact, f"error result of {tool} lacks error.code and error.message strings")
    elif success is not True:
        if tool not in ASK_TOOLS:
            report(fact, f"result of {tool} is not a JSON object with \"success\": true or "
                   "false")
    elif tool in _STATUS_TOOLS:
        found = [value.get("status")]
        agents = value.get("agents")
        if type(agents) is list:
            found += [agent.get("status") for agent in agents if type(agent) is dict]
        allowed = _STATUSES[tool, fact.strict]
        for status in dict.fromkeys(s for s in found if type(s) is str and s not in allowed):
            report(fact, f"{tool}: status {status!r} is not one of {', '.join(sorted(allowed))}")


@check(ROLE_EXISTS, RoleDefined, always=True)
def _role_exists(fact: RoleDefined, report: Report[RoleDefined]) -> None:
    if fact.strict:
        where = "" if fact.first is None else f", defined at message {fact.first}"
        report(fact, f"create_custom_agent defines the {fact.kind} {fact.value!r}, which the "
               f"catalog already has{where}; the call must fail with role-exists")


@check(REPEATED_ARGUMENT_NAME, ToolCall, calls=("problem",))
def _repeated_argument_name(fact: ToolCall, report: Report[ToolCall]) -> None:
    problem = fact.problem
    if problem is not None and problem.kind is ProblemKind.REPEATED_MEMBER:
        member = json.dumps(problem.detail, ensure_ascii=False)
        report(fact, f"arguments of {fact.tool} name the member {member} twice in one object; "
               "JSON readers differ on which value wins", problem.offset, below=_ARGUMENTS)


@check(INVALID_ARGUMENTS_JSON, ToolCall, calls=("problem",))
def _invalid_arguments_json(fact: ToolCall, report: Report[ToolCall]) -> None:
    problem = fact.problem
    if problem is None or not fact.protocol:
        return
    if problem.kind is ProblemKind.NOT_TEXT:
        report(fact, f"arguments of {fact.tool} are {problem.detail}, not a JSON string",
               below=_ARGUMENTS)
    elif problem.kind is ProblemKind.NOT_OBJECT:
        report(fact, f"arguments of {fact.tool} are a JSON {problem.detail}, not an object",
               below=_ARGUMENTS)
    elif problem.kind is ProblemKind.NOT_JSON:
        at = None if problem.offset is None else min(problem.offset, len(fact.text or ""))
        report(fact, f"arguments of {fact.tool} are not valid JSON: {problem.detail}", at,
               below=_ARGUMENTS)


@check(INVALID_ARGUMENTS, ToolCall, calls=("protocol",))
def _invalid_arguments(fact: ToolCall, report: Report[ToolCall]) -> None:
    value, tool, catalog = fact.arguments, fact.tool, fact.catalog
    if value is None or not fact.protocol:
        return  # unread: TW401, TW418
    if fact.problem is not None:  # nested too deep (TW-TOOL-039): still read for the rest
        report(fact, f"{tool}: {fact.problem.message}", below=_ARGUMENTS)
        return
    if catalog.pass_check(tool)(value):
        return  # the common case (blank texts included), told at the least cost
    texts = catalog.text_parameters(tool).intersection(value)
    problems = list(catalog.argument_errors(tool, value))
    for found in problems:
        report(fact, f"{tool}: {found}", below=_ARGUMENTS)
    # Most arguments hold one text, if any: look only at those present.
    for key in sorted(texts) if len(texts) > 1 else texts:
        text = value.get(key)
        # An empty text is already a schema problem (minLength): one finding per text.
        if type(text) is str and (not text or text.isspace()) and not any(
                p.startswith(key + ":") for p in problems):
            report(fact, f"{tool}: {key} is blank", below=_ARGUMENTS)


def _verdict_check(rule: Rule, verdict: Verdict, says: str) -> None:
    """Register the check of ``rule``: a call the catalog gives ``verdict`` for its caller
    (the tool ``says`` something of it)."""
    @check(rule, ToolCall, calls=("verdict",))
    def _called(fact: ToolCall, report: Report[ToolCall]) -> None:
        if fact.verdict is verdict:
            report(fact, f"{fact.tool} {says}")


_verdict_check(LEADER_TOOL_BY_SUB_AGENT, Verdict.LEADER_TOOL,
               "is a Team Leader tool, called by a sub-agent")
_verdict_check(SUB_AGENT_TOOL_BY_LEADER, Verdict.SUB_AGENT_TOOL,
               "is a sub-agent tool, called by the Team Leader")
_verdict_check(REMOVED_TOOL, Verdict.REMOVED, "was removed in multi-agent mode")
_verdict_check(FORBIDDEN_TOOL, Verdict.FORBIDDEN,
               "is forbidden: a sub-agent reports by natural output")


@check(AGENT_ID_REUSED, AgentCreated, always=True)
def _agent_id_reused(fact: AgentCreated, report: Report[AgentCreated]) -> None:
    if fact.first is not None:
        report(fact, f"create_sub_agent reuses {fact.role_id} #{fact.agent_id}, created at "
               f"message {fact.first}")


@check(UNKNOWN_TARGET, CallTarget, always=True)
def _unknown_target(fact: CallTarget, report: Report[CallTarget]) -> None:
    if not fact.caller and not fact.roles:
        report(fact, f"{fact.tool} targets {fact.named}, which does not exist")


@check(TERMINATED_TARGET, CallTarget, always=True)
def _terminated_target(fact: CallTarget, report: Report[CallTarget]) -> None:
    roles = fact.roles
    if fact.terminated and not fact.terminated_ok and len(roles) == 1:
        report(fact, f"{fact.tool} targets {roles[0]} #{fact.agent_id}, which was "
               "terminated, and did not fail")


@check(AMBIGUOUS_TARGET, CallTarget, always=True)
def _ambiguous_target(fact: CallTarget, report: Report[CallTarget]) -> None:
    roles = fact.roles
    if len(roles) > 1:
        report(fact, f"{fact.tool}: agent_id {fact.agent_id} matches agents of roles "
               f"{', '.join(roles)}; the call must fail or name a role_id")


@check(SELF_TARGET, CallTarget, always=True)
def _self_target(fact: CallTarget, report: Report[CallTarget]) -> None:
    if fact.caller:
        report(fact, f"{fact.tool} targets its own caller and did not fail")


@check(MISSING_TOOL_RESULT, MissingResult, always=True)
def _missing_tool_result(fact: MissingResult, report: Report[MissingResult]) -> None:
    if fact.late:
        report(fact, f"tool call {fact.call_id!r} ({fact.tool}) gets its result only at "
               f"message {fact.at}, after a later message")
    else:
        report(fact, f"tool call {fact.call_id!r} ({fact.tool}) has no result before message "
               f"{fact.at}")


@check(DUPLICATE_TOOL_RESULT, StrayResult, always=True)
def _duplicate_tool_result(fact: StrayResult, report: Report[StrayResult]) -> None:
    if fact.answered:
        report(fact, f"another result for tool call {fact.call_id!r}")


@check(ORPHAN_TOOL_RESULT, StrayResult, always=True)
def _orphan_tool_result(fact: StrayResult, report: Report[StrayResult]) -> None:
    if not fact.answered:
        report(fact, f"tool result answers no pending call: {fact.call_id!r}")
