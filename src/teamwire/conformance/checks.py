"""Verdicts on what a router did in a scenario run, each tied to the requirements it covers.

Everything is judged from the model calls the router made: what it appended to each
conversation and in which form, that it never rewrote what a model had already seen, that
every tool call got exactly one result, and that it offered each agent the profile's tools.
"""

from __future__ import annotations

import contextlib
import itertools
import json
from collections.abc import Iterable
from dataclasses import dataclass
from enum import Enum
from typing import Any

from teamwire import schemas
from teamwire.conformance.endpoint import ModelCall
from teamwire.conformance.runner import Run
from teamwire.envelope import LEADER_NAME


class Status(str, Enum):
    """A check's outcome. A MUST that fails fails the run; a SHOULD that fails warns."""

    PASS = "pass"
    FAIL = "fail"
    WARN = "warn"
    SKIP = "skip"


@dataclass(frozen=True)
class Verdict:
    """One check of one scenario run."""

    check: str
    status: Status
    requirements: tuple[str, ...]
    reason: str = ""
    expected: Any = None
    received: Any = None


def _normal(message: Any) -> Any:
    """A chat message as the checks compare it: role, text, tool calls, the call answered;
    a JSON text in a tool result compared as the value it holds; an assistant message with
    no text compares equal whether the router wrote null or an empty string."""
    if not isinstance(message, dict):
        return message
    role = message.get("role")
    out: dict[str, Any] = {"role": role}
    content = message.get("content")
    if role == "tool" and isinstance(content, str):
        try:
            out["json"] = _free_text(json.loads(content))
        except ValueError:
            out["content"] = content
    elif role == "assistant":
        out["content"] = content or None
    else:
        out["content"] = content
    if message.get("tool_call_id") is not None:
        out["tool_call_id"] = message["tool_call_id"]
    calls = message.get("tool_calls") or []
    if calls:
        normal_calls = []
        for call in calls:
            function = call.get("function", {}) if isinstance(call, dict) else {}
            arguments = function.get("arguments")
            with contextlib.suppress(ValueError):
                arguments = json.loads(arguments) if isinstance(arguments, str) else arguments
            normal_calls.append({"id": call.get("id") if isinstance(call, dict) else None,
                                 "name": function.get("name"), "arguments": arguments})
        out["tool_calls"] = normal_calls
    return out


ANY_TEXT = "<any non-empty text>"
"""What an error result's message compares as: TW-TOOL-032 asks for a non-empty explanation,
whose words are each router's own."""


def _free_text(value: Any) -> Any:
    if isinstance(value, dict) and value.get("success") is False:
        error = value.get("error")
        if isinstance(error, dict) and isinstance(error.get("message"), str) \
                and error["message"].strip():
            return {**value, "error": {**error, "message": ANY_TEXT}}
    return value


def appended(calls: list[ModelCall], number: int) -> list[dict[str, Any]]:
    """What the router added to a conversation between call ``number - 1`` (and its reply)
    and call ``number``; for the first call, every message but the system messages."""
    call = calls[number - 1]
    if number == 1:
        return [m for m in call.messages if not (isinstance(m, dict) and m.get("role") == "system")]
    return call.messages[len(calls[number - 2].messages) + 1:]


def check_run(run: Run) -> list[Verdict]:
    """Every verdict on one scenario run."""
    verdicts = [_contract(run), _schedule(run)]
    by_agent: dict[str, list[ModelCall]] = {}
    for call in run.calls:
        by_agent.setdefault(call.agent, []).append(call)
    verdicts.append(_append_only(by_agent))
    verdicts.append(_one_result_each(by_agent))
    verdicts.append(_tool_set(run, by_agent))
    verdicts.extend(_expectations(run, by_agent))
    return verdicts


def _contract(run: Run) -> Verdict:
    """TW-CERT-001: the router can be run as the contract says; else nothing else counts."""
    problems = [*run.problems, *(f"{b.reason} (received: {b.request[:200]!r})" for b in run.breaches)]
    if problems:
        return Verdict("contract", Status.FAIL, ("TW-CERT-001",), "; ".join(problems))
    return Verdict("contract", Status.PASS, ("TW-CERT-001",))


def _schedule(run: Run) -> Verdict:
    """The router made the model calls the scenario expects, and no others: a call that never
    came means a message was lost or held back, an extra call one delivered twice or a turn
    that should not have been."""
    problems = [*run.missing,
                *(f"an unscripted model call {c.number} of {c.agent}" for c in run.unexpected)]
    if problems:
        return Verdict("model-calls", Status.FAIL, run.scenario.requirements, "; ".join(problems))
    return Verdict("model-calls", Status.PASS, run.scenario.requirements)


def _append_only(by_agent: dict[str, list[ModelCall]]) -> Verdict:
    """TW-CERT-007: history is append-only: each call holds the previous call's messages and
    the reply to it, unchanged, before anything new."""
    for agent, calls in by_agent.items():
        for before, after in itertools.pairwise(calls):
            seen = [*before.messages, before.reply.message() if before.reply else {}]
            kept = after.messages[:len(seen)]
            if [_normal(m) for m in kept] != [_normal(m) for m in seen]:
                return Verdict("append-only", Status.FAIL, ("TW-CERT-007",),
                               f"call {after.number} of {agent} does not start with what call "
                               f"{before.number} held and the reply to it",
                               [_normal(m) for m in seen], [_normal(m) for m in kept])
    return Verdict("append-only", Status.PASS, ("TW-CERT-007",))


def _one_result_each(by_agent: dict[str, list[ModelCall]]) -> Verdict:
    """TW-CERT-008: every tool call a model made has exactly one result by the agent's next
    model call."""
    for agent, calls in by_agent.items():
        for call in calls[1:]:
            results: dict[str, int] = {}
            asked: list[str] = []
            for message in call.messages:
                if not isinstance(message, dict):
                    continue
                for tool_call in message.get("tool_calls") or []:
                    if isinstance(tool_call, dict) and isinstance(tool_call.get("id"), str):
                        asked.append(tool_call["id"])
                if message.get("role") == "tool":
                    key = str(message.get("tool_call_id"))
                    results[key] = results.get(key, 0) + 1
            for call_id in asked:
                if results.get(call_id, 0) != 1:
                    return Verdict("one-result-per-tool-call", Status.FAIL, ("TW-CERT-008",),
                                   f"tool call {call_id} of {agent} has {results.get(call_id, 0)} "
                                   f"results in model call {call.number}")
    return Verdict("one-result-per-tool-call", Status.PASS, ("TW-CERT-008",))


def _offered(tools: Iterable[Any]) -> set[str]:
    names = set()
    for tool in tools:
        if isinstance(tool, dict):
            function = tool.get("function")
            if isinstance(function, dict) and isinstance(function.get("name"), str):
                names.add(function["name"])
    return names


def _tool_set(run: Run, by_agent: dict[str, list[ModelCall]]) -> Verdict:
    """TW-CERT-009: the Team Leader is offered the profile's leader tools and each
    sub-agent the sub-agent tools (base tools beside them are the router's affair)."""
    names = schemas.tool_names(run.scenario.profile)
    protocol = set(names.leader) | set(names.sub_agent)
    for agent, calls in by_agent.items():
        wanted = set(names.leader if agent == LEADER_NAME else names.sub_agent)
        for call in calls:
            offered = _offered(call.tools) & protocol
            if offered != wanted:
                return Verdict("tool-set", Status.FAIL, ("TW-CERT-009",),
                               f"model call {call.number} of {agent} offers "
                               f"{sorted(offered) or 'no protocol tool'}",
                               sorted(wanted), sorted(offered))
    return Verdict("tool-set", Status.PASS, ("TW-CERT-009",))


def _expectations(run: Run, by_agent: dict[str, list[ModelCall]]) -> list[Verdict]:
    verdicts = []
    for expectation in run.scenario.expectations:
        name = f"{expectation.agent} call {expectation.call}"
        calls = by_agent.get(expectation.agent, [])
        wanted = [_normal(m) for m in expectation.appended]
        if len(calls) < expectation.call:
            verdicts.append(Verdict(name, Status.FAIL, run.scenario.requirements,
                                    f"{expectation.agent} made {len(calls)} model calls, not "
                                    f"{expectation.call}", wanted, None))
            continue
        got = [_normal(m) for m in appended(calls, expectation.call)]
        if got == wanted:
            verdicts.append(Verdict(name, Status.PASS, run.scenario.requirements))
        else:
            verdicts.append(Verdict(name, Status.FAIL, run.scenario.requirements,
                                    "the messages appended before this call differ from the "
                                    "expected ones", wanted, got))
    return verdicts
