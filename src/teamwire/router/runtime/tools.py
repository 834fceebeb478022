"""The protocol tools, executed for the session: arguments checked, events fed, results built."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from teamwire.envelope import LEADER_NAME, InvalidNameError, MessageType, format_display_name
from teamwire.router.actions import AcknowledgeSend, Action, FailToolCall
from teamwire.router.errors import STORE_FAILED, StoreFailure, TargetError
from teamwire.router.events import AnswerGiven, MessageSent, ToolCallBlocked
from teamwire.router.runtime.arguments import argument_problem, tool_definitions
from teamwire.router.runtime.driver import ToolCall
from teamwire.router.runtime.roles import RoleInfo, role_problem
from teamwire.router.states import AgentState

if TYPE_CHECKING:
    from teamwire.router.runtime.session import Session

ACCEPTANCE_HEADING = "验收标准："

MAX_TURN_TIMEOUT = 1e9
"""Seconds; a larger timeout_seconds (valid: any integer >= 1) is held to this, which is
finite, so that a deadline stays a number that the clock and the store can keep."""


@dataclass(frozen=True)
class ToolResult:
    """The text of a tool message; ``error`` holds the error object of a failed call.

    ``recorded``: the session already put the tool message into the
    conversation (an ask's result is recorded when the ask resolves).
    ``counted``: the call reached the routing core, which counted it.
    """

    text: str
    recorded: bool = False
    counted: bool = False
    error: dict[str, Any] | None = None

    @property
    def stored_nothing(self) -> bool:
        """True for the result of a call whose effects the store refused (TW-DUR-007)."""
        return self.error is not None and self.error.get("code") == STORE_FAILED


def _ok(*, counted: bool = False, **fields: Any) -> ToolResult:
    return ToolResult(json.dumps({"success": True, **fields}, ensure_ascii=False),
                      counted=counted)


def _error(code: str, message: str,
           candidates: tuple[tuple[int, str, str], ...] = (), *,
           counted: bool = False) -> ToolResult:
    error: dict[str, Any] = {"code": code, "message": message}
    if candidates:
        error["candidates"] = [{"agent_id": a, "role_id": r, "display_name": n}
                               for a, r, n in candidates]
    return ToolResult(json.dumps({"success": False, "error": error}, ensure_ascii=False),
                      counted=counted, error=error)


class ToolRunner:
    """Executes the leader's and the sub-agents' protocol tools for one session."""

    def __init__(self, session: Session) -> None:
        self.session = session
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
            return _error("forbidden-tool", f"{call.name!r} is not a tool of {agent}")
        arguments, problem = argument_problem(call.name, call.arguments)
        if arguments is None:
            return _error("invalid-arguments", problem or "invalid arguments")
        handler = getattr(self, f"_{call.name}")
        try:
            result: ToolResult = await handler(agent, call.id, arguments)
        except TargetError as exc:
            return _error(exc.code, exc.message, exc.candidates)
        return result

    @staticmethod
    def store_failed(failure: StoreFailure) -> ToolResult:
        """The result of a call whose effects could not be stored: it did nothing (TW-DUR-007)."""
        return _error(STORE_FAILED, f"{failure}; the call had no effect, it may be repeated")

    # ------------------------------------------------------------- helpers

    def _target(self, caller: str, agent_id: int, role_id: str | None, *,
                allow_terminated: bool = False) -> str:
        name = self.session.core.resolve_target(agent_id, role_id, exclude=caller)
        if name == caller:
            raise TargetError("invalid-arguments", "a call cannot target its own caller")
        if not allow_terminated and self.session.core.state(name) is AgentState.TERMINATED:
            raise TargetError("agent-terminated", f"{name} is terminated and receives nothing")
        return name

    def _agent_json(self, name: str) -> dict[str, Any]:
        record = self.session.core.record(name)
        agent_id = int(name.rsplit("_", 1)[1])
        return {"agent_id": agent_id, "role_id": record.role_id, "display_name": name}

    @staticmethod
    def _failure(actions: list[Action], agent: str, call_id: str) -> ToolResult | None:
        for action in actions:
            if isinstance(action, FailToolCall) and action.agent == agent \
                    and action.call_id == call_id:
                return _error(action.code, action.message, action.candidates, counted=True)
        return None

    @staticmethod
    def _ack(actions: list[Action], call_id: str) -> AcknowledgeSend:
        return next(a for a in actions if isinstance(a, AcknowledgeSend) and a.call_id == call_id)

    async def _ask(self, agent: str, call_id: str, target: str, question_id: str,
                   content: str) -> ToolResult:
        session = self.session
        session.register_ask(agent, call_id)
        # committed before the caller blocks: the ask is acknowledged by waiting
        try:
            session.feed(ToolCallBlocked(agent, call_id, target, question_id, content,
                                         timeout=session.ask_timeout, now=session.clock.now()))
        except StoreFailure:
            session.forget_ask(agent, call_id)
            raise
        text = await session.wait_for_answer(agent, call_id)
        error = json.loads(text)["error"] if text.startswith("{") else None
        return ToolResult(text, recorded=True, counted=True, error=error)

    # ---------------------------------------------------------- leader tools

    async def _create_sub_agent(self, agent: str, call_id: str, args: dict[str, Any]) -> ToolResult:
        session = self.session
        role = session.roles.get(args["role_id"])
        if role is None:
            return _error("unknown-role", f"no role {args['role_id']!r} in the catalog")
        agent_id = args["agent_id"]
        try:
            name = format_display_name(role.name, agent_id)
        except InvalidNameError as exc:  # agent_id < 1 (the schema says so too)
            return _error("invalid-arguments", str(exc))
        if session.core.state(name) is not AgentState.ABSENT:
            return _error("duplicate-id", f"{role.role_id} already has agent_id {agent_id}")
        task = args["task"]
        acceptance = args.get("acceptance")
        if acceptance:
            task = "\n".join([task, "", ACCEPTANCE_HEADING, *(f"- {c}" for c in acceptance)])
        session.add_sub_agent(name, role.role_id)
        if "timeout_seconds" in args:
            session.set_turn_timeout(name, float(min(args["timeout_seconds"],
                                                     MAX_TURN_TIMEOUT)))
        actions = session.stage(MessageSent(agent, name, MessageType.TASK, task, call_id=call_id))
        ack = self._ack(actions, call_id)
        return _ok(**self._agent_json(name), status=session.core.state(name).status,
                   task_id=ack.message_id, counted=True)

    async def _terminate_sub_agent(self, agent: str, call_id: str,
                                   args: dict[str, Any]) -> ToolResult:
        name = self._target(agent, args["agent_id"], args.get("role_id"))
        self.session.terminate(name)
        return _ok(**self._agent_json(name), status="terminated")

    async def _send_message_to_sub_agent(self, agent: str, call_id: str,
                                         args: dict[str, Any]) -> ToolResult:
        name = self._target(agent, args["agent_id"], args.get("role_id"))
        actions = self.session.stage(MessageSent(agent, name, MessageType.MESSAGE,
                                                 args["message"], call_id=call_id))
        failure = self._failure(actions, agent, call_id)
        if failure is not None:
            return failure
        ack = self._ack(actions, call_id)
        extra: dict[str, Any] = {"delivery": ack.delivery} if ack.delivery else {}
        if ack.duplicate:
            extra["duplicate"] = True
        return _ok(display_name=name, message_id=ack.message_id, counted=True, **extra)

    async def _ask_sub_agent(self, agent: str, call_id: str, args: dict[str, Any]) -> ToolResult:
        name = self._target(agent, args["agent_id"], args.get("role_id"))
        return await self._ask(agent, call_id, name, args["question_id"], args["question"])

    async def _answer_sub_agent_question(self, agent: str, call_id: str,
                                         args: dict[str, Any]) -> ToolResult:
        name = self._target(agent, args["agent_id"], args.get("role_id"))
        actions = self.session.stage(AnswerGiven(agent, name, args["question_id"],
                                                 args["answer"], call_id=call_id))
        return self._failure(actions, agent, call_id) or _ok(
            display_name=name, question_id=args["question_id"], counted=True)

    async def _list_active_sub_agents(self, agent: str, call_id: str,
                                      args: dict[str, Any]) -> ToolResult:
        core = self.session.core
        agents = []
        for record in core.records():
            if record.is_leader or record.state is AgentState.TERMINATED:
                continue
            summary = self.session.last_output.get(record.name, "")
            agents.append({**self._agent_json(record.name), "status": record.state.status,
                           "summary": summary.splitlines()[0][:120] if summary else ""})
        return _ok(agents=agents)

    async def _get_sub_agent_status(self, agent: str, call_id: str,
                                    args: dict[str, Any]) -> ToolResult:
        name = self._target(agent, args["agent_id"], args.get("role_id"), allow_terminated=True)
        core = self.session.core
        record = core.record(name)
        status: dict[str, Any] = {**self._agent_json(name), "status": record.state.status,
                                  "pending_messages": len(core.pending(name)),
                                  "statistics": {"turns": record.turns,
                                                 "tool_calls": core.tool_calls(name)}}
        if record.ask is not None:
            status["waiting_for"] = record.ask.target
        if name in self.session.last_output:
            status["recent_output"] = self.session.last_output[name]
        return _ok(**status)

    async def _create_custom_agent(self, agent: str, call_id: str,
                                   args: dict[str, Any]) -> ToolResult:
        role_id, name = args["role_id"], args["name"]
        problem = role_problem(role_id, name)
        if problem is not None:  # TW-TOOL-018, TW-SEC-006
            return _error("invalid-name", problem)
        roles = self.session.roles
        if role_id in roles or any(r.name == name for r in roles.values()):
            return _error("role-exists", f"a role {role_id!r} or named {name!r} exists")
        self.session.add_role(RoleInfo(role_id, name, args["description"], args["prompt"],
                                       args.get("model"), args.get("thinking_mode")))
        return _ok(role_id=role_id, name=name)

    async def _list_agents(self, agent: str, call_id: str, args: dict[str, Any]) -> ToolResult:
        return _ok(roles=[r.to_json() for r in self.session.roles.values()])

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
        actions = self.session.stage(AnswerGiven(agent, name, args["message_id"],
                                                 args["answer"], call_id=call_id))
        return self._failure(actions, agent, call_id) or _ok(
            display_name=name, message_id=args["message_id"], counted=True)
