"""Building blocks of the router scenarios: agents, replies, tool calls, the messages a router
appends (envelopes rendered by the envelope library, tool results as the tools chapter gives
them)."""

from __future__ import annotations

import json
from typing import Any

from teamwire.conformance.matching import IF_PRESENT
from teamwire.envelope import Envelope, render

TL, UIO, FSE = "Team Leader", "UI Operator_1", "Full-Stack Engineer_1"
UIO2 = "UI Operator_2"
"""A second instance of the operator's role, for scenarios that need two."""
TOKENS = {TL: "[tw:leader]", UIO: "[tw:uio1]", FSE: "[tw:fse1]", UIO2: "[tw:uio2]"}
REQUEST = f"Build a sign-up page. {TOKENS[TL]}"
UIO_TASK = f"Design the sign-up form. {TOKENS[UIO]}"
FSE_TASK = f"Write the sign-up API. {TOKENS[FSE]}"
UIO2_TASK = f"Design the sign-in form. {TOKENS[UIO2]}"


def call(call_id: str, name: str, **arguments: Any) -> dict[str, Any]:
    """One scripted tool call."""
    return {"id": call_id, "name": name, "arguments": arguments}


def says(text: str) -> dict[str, Any]:
    """A scripted reply of text only: it ends the turn."""
    return {"content": text}


def calls(*tool_calls: dict[str, Any], text: str | None = None) -> dict[str, Any]:
    """A scripted reply that makes tool calls (and may say something first)."""
    return {"content": text, "tool_calls": list(tool_calls)}


def create(call_id: str, role_id: str, task: str, agent_id: int = 1) -> dict[str, Any]:
    return call(call_id, "create_sub_agent", agent_id=agent_id, role_id=role_id, task=task)


def agent(name: str, *replies: dict[str, Any]) -> dict[str, Any]:
    return {"name": name, "token": TOKENS[name], "replies": list(replies)}


def schedule(*steps: tuple[str, int] | tuple[str, int, str]) -> list[dict[str, Any]]:
    """Release steps ``(agent, reply)``; ``(agent, reply, "crash")`` kills and restarts the
    router once that call has arrived; ``(agent, reply, "await")`` only waits for it;
    ``(agent, reply, "at_timer")`` answers it at the instant the router's next timer is due,
    before that timer runs (in process only)."""
    return [{"agent": step[0], "call": step[1], **({step[2]: True} if len(step) == 3 else {})}
            for step in steps]


def user(text: str) -> dict[str, Any]:
    return {"role": "user", "content": text}


def envelope(sender: str, label: str, message_id: str, tag: str, content: str,
             attributes: tuple[tuple[str, str], ...] = ()) -> dict[str, Any]:
    """A user message holding one envelope."""
    return user(render(Envelope(sender, label, message_id, tag, content, attributes)))


def tool(call_id: str, result: dict[str, Any] | str) -> dict[str, Any]:
    """A tool result: JSON (compared as the value it holds) or an envelope's text."""
    content = result if isinstance(result, str) else json.dumps(result, ensure_ascii=False)
    return {"role": "tool", "tool_call_id": call_id, "content": content}


def created(agent_id: int, role_id: str, name: str, task_id: str) -> dict[str, Any]:
    """create_sub_agent's success result (TW-TOOL-007), with the ``status`` a router may
    leave out (TW-TOOL-047)."""
    return {"success": True, "agent_id": agent_id, "role_id": role_id, "display_name": name,
            "status": {IF_PRESENT: "running"}, "task_id": task_id}


def scenario(name: str, title: str, requirements: list[str], agents: list[dict[str, Any]],
             steps: list[dict[str, Any]], expect: list[dict[str, Any]], *,
             level: str = "core", knobs: dict[str, Any] | None = None,
             settle: float = 0.0, profile: str = "strict", refused: bool = False,
             wait: float = 0.0) -> dict[str, Any]:
    out: dict[str, Any] = {"scenario": name, "title": title, "requirements": requirements,
                           "level": level, "profile": profile, "request": REQUEST}
    if knobs:
        out["knobs"] = knobs
    if settle:
        out["settle"] = settle
    if refused:
        out["refused"] = True
    if wait:
        out["wait"] = wait
    out.update({"agents": agents, "schedule": steps, "expect": expect})
    return out


def expect(agent_name: str, number: int, *messages: dict[str, Any],
           requirements: tuple[str, ...] = ()) -> dict[str, Any]:
    """What ``agent_name`` is shown before its call ``number``; ``requirements``, when the
    scenario checks more than these messages show, are the ones a difference here breaks."""
    cited = {"requirements": list(requirements)} if requirements else {}
    return {"agent": agent_name, "call": number, **cited, "appended": list(messages)}
