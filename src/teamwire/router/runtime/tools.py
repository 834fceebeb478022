"""The protocol tools, executed for a session: arguments checked, calls routed, results built.

The tools reach the session only through ``ToolHost`` (``teamwire.router.runtime.host``):
they read the core and ask the host to route; the host tells each call's outcome.
"""

from __future__ import annotations

import json
from typing import Any

from teamwire.envelope import LEADER_NAME, InvalidNameError, MessageType, format_display_name
from teamwire.router.actions import FailToolCall
from teamwire.router.errors import TargetError
from teamwire.router.runtime.arguments import argument_problem, tool_definitions
from teamwire.router.runtime.driver import ToolCall
from teamwire.router.runtime.host import ToolHost
from teamwire.router.runtime.roles import RoleInfo, role_problem
from teamwire.router.runtime.tool_results import ToolResult, error, ok
from teamwire.router.states import AgentState

ACCEPTANCE_HEADING = "验收标准："

MAX_TURN_TIMEOUT = 1e9
"""Seconds; a larger timeout_seconds (valid: any integer >= 1) is held to this, which is
finite, so that a deadline stays a number that the clock and the store can keep."""


class ToolRunner:
    """Executes the leader's and the sub-agents' protocol tools for one session."""

    def __init__(self, host: ToolHost) -> None:
        self.host = host
        names = tool_definitions()
        self._leader = {d["function"]["name"] for d in names["leader"]}
        self._sub = {d["function"]["name"] for d in names["sub_agent"]}

    def definitions(self, agent: str) -> list[dict[str, Any]]:
        """The function definitions offered to ``agent``."""
        return tool_definitions()["leader" if agent == LEADER_NAME else "sub_agent"]

    async def run(self, agent: str, call: ToolCall) -> ToolResult:
        """Execute one tool call of ``agent``; every failure is an error result."""
        allowed = self._leader if agent == LEADER_NAME else self._sub
        if call.name not in allowed:
            return error("forbidden-tool", f"{call.name!r} is not a tool of {agent}")
        arguments, problem = argument_problem(call.name, call.arguments)
        if arguments is None:
            return error("invalid-arguments", problem or "invalid arguments")
        handler = getattr(self, f"_{call.name}")
        try:
            result: ToolResult = await handler(agent, call.id, arguments)
        except TargetError as exc:
            return error(exc.code, exc.message, exc.candidates)
        return result

    # ------------------------------------------------------------- helpers

    def _target(self, caller: str, agent_id: int, role_id: str | None, *,
                allow_terminated: bool = False) -> str:
        core = self.host.core
        name = core.resolve_target(agent_id, role_id, exclude=caller)
        if name == caller:
            raise TargetError("invalid-arguments", "a call cannot target its own caller")
        if not allow_terminated and core.state(name) is AgentState.TERMINATED:
            raise TargetError("agent-terminated", f"{name} is terminated and receives nothing")
        return name

    def _agent_json(self, name: str) -> dict[str, Any]:
        record = self.host.core.record(name)
        agent_id = int(name.rsplit("_", 1)[1])
        return {"agent_id": agent_id, "role_id": record.role_id, "display_name": name}

    async def _ask(self, agent: str, call_id: str, target: str, question_id: str,
                   content: str) -> ToolResult:
        text = await self.host.ask(agent, call_id, target, question_id, content)
        found = json.loads(text)["error"] if text.startswith("{") else None
        return ToolResult(text, recorded=True, counted=True, error=found)

    # ---------------------------------------------------------- leader tools

    async def _create_sub_agent(self, agent: str, call_id: str, args: dict[str, Any]) -> ToolResult:
        host = self.host
        role = host.roles.get(args["role_id"])
        if role is None:
            return error("unknown-role", f"no role {args['role_id']!r} in the catalog")
        agent_id = args["agent_id"]
        try:
            name = format_display_name(role.name, agent_id)
        except InvalidNameError as exc:  # agent_id < 1 (the schema says so too)
            return error("invalid-arguments", str(exc))
        if host.core.state(name) is not AgentState.ABSENT:
            return error("duplicate-id", f"{role.role_id} already has agent_id {agent_id}")
        task = args["task"]
        acceptance = args.get("acceptance")
        if acceptance:
            task = "\n".join([task, "", ACCEPTANCE_HEADING, *(f"- {c}" for c in acceptance)])
        timeout = (float(min(args["timeout_seconds"], MAX_TURN_TIMEOUT))
                   if "timeout_seconds" in args else None)
        host.create_agent(name, role.role_id, timeout)
        outcome = host.send(agent, call_id, name, MessageType.TASK, task)
        if isinstance(outcome, FailToolCall):
            return _refused(outcome)
        return ok(**self._agent_json(name), status=host.core.state(name).status,
                  task_id=outcome.message_id, counted=True)

    async def _terminate_sub_agent(self, agent: str, call_id: str,
                                   args: dict[str, Any]) -> ToolResult:
        name = self._target(agent, args["agent_id"], args.get("role_id"))
        self.host.terminate(name)
        return ok(**self._agent_json(name), status="terminated")

    async def _send_message_to_sub_agent(self, agent: str, call_id: str,
                                         args: dict[str, Any]) -> ToolResult:
        name = self._target(agent, args["agent_id"], args.get("role_id"))
        outcome = self.host.send(agent, call_id, name, MessageType.MESSAGE, args["message"])
        if isinstance(outcome, FailToolCall):
            return _refused(outcome)
        extra: dict[str, Any] = {"delivery": outcome.delivery} if outcome.delivery else {}
        if outcome.duplicate:
            extra["duplicate"] = True
        return ok(display_name=name, message_id=outcome.message_id, counted=True, **extra)

    async def _ask_sub_agent(self, agent: str, call_id: str, args: dict[str, Any]) -> ToolResult:
        name = self._target(agent, args["agent_id"], args.get("role_id"))
        return await self._ask(agent, call_id, name, args["question_id"], args["question"])

    async def _answer_sub_agent_question(self, agent: str, call_id: str,
                                         args: dict[str, Any]) -> ToolResult:
        name = self._target(agent, args["agent_id"], args.get("role_id"))
        outcome = self.host.answer(agent, call_id, name, args["question_id"], args["answer"])
        if isinstance(outcome, FailToolCall):
            return _refused(outcome)
        return ok(display_name=name, question_id=args["question_id"], counted=True)

    async def _list_active_sub_agents(self, agent: str, call_id: str,
                                      args: dict[str, Any]) -> ToolResult:
        agents = []
        for record in self.host.core.records():
            if record.is_leader or record.state is AgentState.TERMINATED:
                continue
            agents.append({**self._agent_json(record.name), "status": record.state.status,
                           "summary": summary_of(self.host.last_output.get(record.name, ""))})
        return ok(agents=agents)

    async def _get_sub_agent_status(self, agent: str, call_id: str,
                                    args: dict[str, Any]) -> ToolResult:
        name = self._target(agent, args["agent_id"], args.get("role_id"), allow_terminated=True)
        core = self.host.core
        record = core.record(name)
        status: dict[str, Any] = {**self._agent_json(name), "status": record.state.status,
                                  "pending_messages": len(core.pending(name)),
                                  "statistics": {"turns": record.turns,
                                                 "tool_calls": core.tool_calls(name)}}
        if record.ask is not None:
            status["waiting_for"] = record.ask.target
        if name in self.host.last_output:
            status["recent_output"] = self.host.last_output[name]
        return ok(**status)

    async def _create_custom_agent(self, agent: str, call_id: str,
                                   args: dict[str, Any]) -> ToolResult:
        role_id, name = args["role_id"], args["name"]
        problem = role_problem(role_id, name)
        if problem is not None:  # TW-TOOL-018, TW-SEC-006
            return error("invalid-name", problem)
        roles = self.host.roles
        if role_id in roles or any(r.name == name for r in roles.values()):
            return error("role-exists", f"a role {role_id!r} or named {name!r} exists")
        self.host.add_role(RoleInfo(role_id, name, args["description"], args["prompt"],
                                    args.get("model"), args.get("thinking_mode")))
        return ok(role_id=role_id, name=name)

    async def _list_agents(self, agent: str, call_id: str, args: dict[str, Any]) -> ToolResult:
        return ok(roles=[r.to_json() for r in self.host.roles.values()])

    # ------------------------------------------------------- sub-agent tools

    async def _ask_master(self, agent: str, call_id: str, args: dict[str, Any]) -> ToolResult:
        return await self._ask(agent, call_id, LEADER_NAME, args["question_id"], args["question"])

    async def _ask_other_agent(self, agent: str, call_id: str,
                               args: dict[str, Any]) -> ToolResult:
        name = self._target(agent, args["target_agent_id"], args.get("role_id"))
        return await self._ask(agent, call_id, name, args["message_id"], args["content"])

    async def _answer_other_agent(self, agent: str, call_id: str,
                                  args: dict[str, Any]) -> ToolResult:
        name = self._target(agent, args["source_agent_id"], args.get("role_id"))
        outcome = self.host.answer(agent, call_id, name, args["message_id"], args["answer"])
        if isinstance(outcome, FailToolCall):
            return _refused(outcome)
        return ok(display_name=name, message_id=args["message_id"], counted=True)


SUMMARY_LENGTH = 120
"""Code points of a sub-agent's latest natural output that ``list_active_sub_agents`` shows."""


def summary_of(output: str) -> str:
    """The ``summary`` of ``list_active_sub_agents`` (TW-TOOL-015): the latest natural output's
    text before its first LF or CR, cut to ``SUMMARY_LENGTH`` code points. Only LF and CR end
    the line, so that routers in every language cut at the same place."""
    end = len(output)
    for breaker in ("\n", "\r"):
        found = output.find(breaker)
        if found != -1:
            end = min(end, found)
    return output[:min(end, SUMMARY_LENGTH)]


def _refused(failure: FailToolCall) -> ToolResult:
    """The error result of a call that reached the router, which refused it."""
    return error(failure.code, failure.message, failure.candidates, counted=True)
