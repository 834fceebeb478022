"""Verdicts on what a router did in a scenario run, each tied to the requirements it covers.

Everything is judged from the model calls the router made: what it appended to each
conversation and in which form, that it never rewrote what a model had already seen, that
every tool call got exactly one result, and that it offered each agent the profile's tools.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import re
from collections import Counter
from collections.abc import Iterable
from typing import Any

from teamwire import schemas
from teamwire.conformance.astrion_stops import stops_by_agent
from teamwire.conformance.capabilities import Capabilities
from teamwire.conformance.endpoint import ModelCall
from teamwire.conformance.matching import (
    UNLESS_OFFERED,
    first_difference,
    matches,
    with_further_members,
    with_placeholders,
)
from teamwire.conformance.profile_reading import read_messages, with_astrion_statuses
from teamwire.conformance.run_checks import RUN_CHECKS
from teamwire.conformance.runner import Run
from teamwire.conformance.verdict import Status as Status
from teamwire.conformance.verdict import Verdict as Verdict
from teamwire.envelope import LEADER_NAME, Envelope, ParseError, parse
from teamwire.envelope.header import HEADER_MARK
from teamwire.envelope.run_result import read_run_result

CONTRACT = RUN_CHECKS["contract"]
OPENING_CHECK = RUN_CHECKS["conversation-opening"]
APPEND_ONLY = RUN_CHECKS["append-only"]
ONE_RESULT = RUN_CHECKS["one-result-per-tool-call"]
TOOL_SET = RUN_CHECKS["tool-set"]
NO_DUPLICATES = RUN_CHECKS["no-duplicates"]
RESTORED = RUN_CHECKS["restored-conversation"]
DROPPED_REPLIES = RUN_CHECKS["dropped-replies"]
SEND_DELIVERY = RUN_CHECKS["feature send-delivery"]


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
        out["content"] = _free_run_result(content)
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


def _free_run_result(content: Any) -> Any:
    """An envelope whose content is a run result of state error or timeout compares by its
    sender, label, id, tag, the result's agent and state and its body element: the text that
    says which error or limit it was (and a summary line) are each router's own words
    (TW-RES-009)."""
    if not isinstance(content, str) or "<result " not in content:
        return content
    try:
        envelope = parse(content)
    except ParseError:
        return content
    result = read_run_result(envelope.content)
    if result is None or result.attribute("state") not in ("error", "timeout"):
        return content
    return {"envelope": [envelope.sender, envelope.label, envelope.id, envelope.tag],
            "run_result": [result.attribute("agent"), result.attribute("state"), result.body,
                           ANY_TEXT]}


def appended(calls: dict[int, ModelCall], number: int) -> list[dict[str, Any]]:
    """What the router added to a conversation between the call for reply ``number - 1``
    (and that reply) and the call for reply ``number``; for the first, every message but
    the system messages."""
    call = calls[number]
    if number == 1:
        return [m for m in call.messages if not (isinstance(m, dict) and m.get("role") == "system")]
    before = calls.get(number - 1)
    if before is None:
        return call.messages
    return call.messages[len(before.messages) + (0 if _dropped(before) else 1):]


def _dropped(call: ModelCall) -> bool:
    """Whether the call got a reply the router must drop (TW-PROF-037): nothing of it
    follows the call's messages in the agent's next call."""
    return call.reply is not None and call.reply.dropped


def answered_calls(run: Run) -> dict[str, dict[int, ModelCall]]:
    """Agent → reply number → the call that got that reply (after a restart, the repeat)."""
    found: dict[str, dict[int, ModelCall]] = {}
    for call in run.calls:
        if not call.abandoned and call.failure is None:
            found.setdefault(call.agent, {})[call.number] = call
    return found


def check_run(run: Run, capabilities: Capabilities | None = None) -> list[Verdict]:
    """Every verdict on one scenario run, holding the router to the optional features it
    declares."""
    capabilities = capabilities or Capabilities()
    if run.scenario.refused:
        return [_contract(run), _refusal(run)]
    if not run.started:
        return [_contract(run)]  # nothing ran: every other check would only say so again
    verdicts = [_contract(run), _schedule(run)]
    numbered = answered_calls(run)
    by_agent = {agent: [calls[n] for n in sorted(calls)] for agent, calls in numbered.items()}
    verdicts.append(_append_only(by_agent, run.calls))
    verdicts.append(_one_result_each(by_agent, run.scenario.profile))
    verdicts.append(_tool_set(run, by_agent))
    verdicts.append(_opening(run))
    verdicts.append(_no_duplicates(by_agent))
    if any(reply.dropped for script in run.scenario.scripts.values() for reply in script):
        verdicts.append(_dropped_replies(by_agent))
    if run.restarts:
        verdicts.append(_repeats_restore(run))
    verdicts.extend(_expectations(run, numbered))
    not_compared = _not_compared(run)
    if not_compared is not None:
        verdicts.append(not_compared)
    delivery = _send_delivery(by_agent, capabilities)
    if delivery is not None:
        verdicts.append(delivery)
    return verdicts


def _not_compared(run: Run) -> Verdict | None:
    """TW-CERT-034: what of the expected results of a scenario of profile strict, run in
    astrion's forms, the router's result texts do not carry: reported as not compared,
    never passed in silence. None for any other run, and when everything was compared."""
    from teamwire.conformance.astrion_forms import AstrionScenario

    if not isinstance(run.scenario, AstrionScenario) or not run.scenario.notes:
        return None
    said = "; ".join(f"{agent} call {call}: {note}"
                     for (agent, call), note in sorted(run.scenario.notes.items()))
    return RUN_CHECKS["astrion-result-texts"].verdict(
        Status.SKIP, None, f"compared by what astrion's result texts carry; not compared: {said}")


def _contract(run: Run) -> Verdict:
    """TW-CERT-001, TW-CERT-004: the router can be run as the contract says, and exits with
    status 0 once the session has ended; else nothing else counts."""
    problems = [*run.problems, *(f"{b.reason} (received: {b.request[:200]!r})" for b in run.breaches)]
    broken = (("TW-CERT-001",) if problems else ()) + (("TW-CERT-004",) if run.exit_problem
                                                      else ())
    if broken:
        return CONTRACT.verdict(Status.FAIL, broken,
                       "; ".join([*problems, *([run.exit_problem] if run.exit_problem else [])]))
    return CONTRACT.verdict(Status.PASS)


REFUSAL = "TW-CERT-020"
"""How a harness sees a router refuse its knobs (chapter 13)."""


def _refusal(run: Run) -> Verdict:
    """TW-ROUTE-032 through TW-CERT-020: started with a knob value it must refuse, the router
    exits by itself with a non-zero status and calls no model."""
    requirements = tuple(dict.fromkeys((*run.scenario.requirements, REFUSAL)))
    knobs = ", ".join(f"{k} {v!r}" for k, v in run.scenario.knobs.items())
    if run.calls:
        return Verdict("refusal", Status.FAIL, requirements,
                       f"started with {knobs}, the router made {len(run.calls)} model call(s) "
                       "instead of refusing to start")
    if not run.refusal:
        return Verdict("refusal", Status.FAIL, requirements,
                       f"started with {knobs}, the router did not exit")
    if run.exit_code == 0:
        return Verdict("refusal", Status.FAIL, requirements,
                       f"started with {knobs}, the router exited with status 0, as after a "
                       "session, not with the non-zero status of a refusal")
    return Verdict("refusal", Status.PASS, requirements, run.refusal)


def _schedule(run: Run) -> Verdict:
    """The router made the model calls the scenario expects, and no others: a call that never
    came means a message was lost or held back, an extra call one delivered twice or a turn
    that should not have been."""
    problems = [*run.missing,
                *(f"an unscripted model call {c.number} of {c.agent}" for c in run.unexpected)]
    if problems:
        return Verdict("model-calls", Status.FAIL, run.scenario.requirements, "; ".join(problems))
    return Verdict("model-calls", Status.PASS, run.scenario.requirements)


def assigned_id(given: Any, used: set[str]) -> str:
    """The id a router records for a tool call that came with id ``given`` when the calls
    before it in the conversation hold the ids ``used`` (TW-DUR-008, TW-DUR-009): a new,
    non-empty id is kept; otherwise ``base``, ``_`` and the smallest n >= 2 not used yet,
    ``base`` being the first 64 characters of the given id, or ``call``."""
    if isinstance(given, str) and given and given not in used:
        return given
    base = given[:64] if isinstance(given, str) and given else "call"
    n = 2
    while f"{base}_{n}" in used:
        n += 1
    return f"{base}_{n}"


def _with_assigned_ids(reply: dict[str, Any], conversation: list[Any]) -> dict[str, Any]:
    """The assistant message ``reply`` as a router records it after ``conversation``: each
    tool call with the id TW-DUR-009 gives it."""
    if not reply.get("tool_calls"):
        return reply
    used = {c["id"] for m in conversation if isinstance(m, dict)
            for c in m.get("tool_calls") or () if isinstance(c, dict)
            and isinstance(c.get("id"), str)}
    recorded = []
    for tool_call in reply["tool_calls"]:
        call_id = assigned_id(tool_call.get("id"), used)
        used.add(call_id)
        recorded.append({**tool_call, "id": call_id})
    return {**reply, "tool_calls": recorded}


def _append_only(by_agent: dict[str, list[ModelCall]], every: list[ModelCall]) -> Verdict:
    """TW-CERT-007: history is append-only: each call holds the previous call's messages and
    the reply to it, unchanged but for the ids a router gives tool calls whose id was empty,
    missing or repeated (TW-DUR-009), before anything new; a call that failed (TW-ROUTE-031)
    left nothing to append, so the agent's next call begins with what the failed one held."""
    for index, failed in enumerate(every):
        if failed.failure is None or failed.abandoned:
            continue
        after = next((c for c in every[index + 1:]
                      if c.agent == failed.agent and not c.abandoned and c.life == failed.life),
                     None)
        if after is None:
            continue
        kept = after.messages[:len(failed.messages)]
        if [_normal(m) for m in kept] != [_normal(m) for m in failed.messages]:
            return APPEND_ONLY.verdict(Status.FAIL, ("TW-CERT-007", "TW-ROUTE-031"),
                           f"the model call of {failed.agent} after the failed call for reply "
                           f"{failed.number} does not start with what the failed call held",
                           [_normal(m) for m in failed.messages], [_normal(m) for m in kept])
    for agent, calls in by_agent.items():
        for before, after in itertools.pairwise(calls):
            reply = _with_assigned_ids(before.reply.message(), before.messages) \
                if before.reply else {}
            # A dropped reply is never appended (TW-PROF-037): the next call goes on from
            # what the call held; whether the router kept it is the dropped-replies check's.
            seen = [*before.messages, *([] if _dropped(before) else [reply])]
            kept = after.messages[:len(seen)]
            if [_normal(m) for m in kept] != [_normal(m) for m in seen]:
                return APPEND_ONLY.verdict(Status.FAIL, ("TW-CERT-007",),
                               f"call {after.number} of {agent} does not start with what call "
                               f"{before.number} held" + ("" if _dropped(before)
                                                         else " and the reply to it"),
                               [_normal(m) for m in seen], [_normal(m) for m in kept])
    return APPEND_ONLY.verdict(Status.PASS)


STOPPED = ("TW-CERT-008", "TW-PROF-035")
"""What a place left open beyond the stops of profile astrion breaks."""


def _one_result_each(by_agent: dict[str, list[ModelCall]], profile: str = "strict") -> Verdict:
    """TW-CERT-008: every tool call a model made has exactly one result by the agent's next
    model call; in profile astrion, but for the calls of one reply per stop_sub_agent that
    named the agent and succeeded, which keep none (TW-PROF-025, TW-PROF-035)."""
    stops: Counter[str] = Counter()
    if profile == "astrion" and by_agent.get(LEADER_NAME):
        stops = stops_by_agent(by_agent[LEADER_NAME][-1].messages,
                               [a for a in by_agent if a != LEADER_NAME])
    for agent, calls in by_agent.items():
        for call in calls[1:]:
            results: dict[str, int] = {}
            asked: list[tuple[str, int]] = []  # (call id, the reply that made it)
            for index, message in enumerate(call.messages):
                if not isinstance(message, dict):
                    continue
                for tool_call in message.get("tool_calls") or []:
                    if isinstance(tool_call, dict) and isinstance(tool_call.get("id"), str):
                        asked.append((tool_call["id"], index))
                if message.get("role") == "tool":
                    key = str(message.get("tool_call_id"))
                    results[key] = results.get(key, 0) + 1
            open_replies: list[int] = []
            for call_id, reply in asked:
                count = results.get(call_id, 0)
                if count == 0 and stops[agent] and (reply in open_replies
                                                    or len(open_replies) < stops[agent]):
                    if reply not in open_replies:
                        open_replies.append(reply)
                    continue
                if count != 1:
                    beyond = count == 0 and stops[agent] > 0
                    return ONE_RESULT.verdict(Status.FAIL,
                                   STOPPED if beyond else ("TW-CERT-008",),
                                   f"tool call {call_id} of {agent} has {count} results in "
                                   f"model call {call.number}" + (
                                       f", and the {stops[agent]} stop(s) of {agent} excuse "
                                       "as many replies left open" if beyond else ""))
    return ONE_RESULT.verdict(Status.PASS)


def _dropped_replies(by_agent: dict[str, list[ModelCall]]) -> Verdict:
    """TW-PROF-037: a reply whose model call was in flight when a stop ended the turn leaves
    no trace: no later call of the agent holds it as an assistant message or a result of one
    of its tool calls, and no later call of another agent holds an envelope of the agent whose
    content is its text."""
    for agent, calls in by_agent.items():
        for dropped in calls:
            if dropped.reply is not None and dropped.reply.dropped:
                failure = _reply_kept(agent, dropped, calls) \
                    or _reply_delivered(agent, dropped, by_agent)
                if failure is not None:
                    return failure
    return DROPPED_REPLIES.verdict(Status.PASS)


def _reply_kept(agent: str, dropped: ModelCall, calls: list[ModelCall]) -> Verdict | None:
    """The failure of a later call of ``agent`` that holds the dropped reply, or a result of
    one of its tool calls."""
    reply = dropped.reply
    assert reply is not None
    text = (reply.content or "").strip()
    call_ids = {call_id for call_id, _, _ in reply.tool_calls if call_id}
    wanted = _without_ids(_normal(reply.message()))
    for later in (c for c in calls if c.number > dropped.number):
        for message in later.messages[len(dropped.messages):]:
            if not isinstance(message, dict):
                continue
            normal = _normal(message)
            kept = message.get("role") == "assistant" and (
                _without_ids(normal) == wanted
                or (bool(text) and normal.get("content") == reply.content))
            if kept or (message.get("role") == "tool"
                        and message.get("tool_call_id") in call_ids):
                return DROPPED_REPLIES.verdict(
                    Status.FAIL, None,
                    f"model call {later.number} of {agent} holds "
                    + ("the reply" if kept else "a result of a tool call of the reply")
                    + f" to its call {dropped.number}, whose model call was in flight when a "
                    "stop ended its turn", [], [normal])
    return None


def _reply_delivered(agent: str, dropped: ModelCall,
                     by_agent: dict[str, list[ModelCall]]) -> Verdict | None:
    """The failure of another agent's last call that holds an envelope of ``agent`` with
    the dropped reply's text."""
    assert dropped.reply is not None
    text = (dropped.reply.content or "").strip()
    if not text:
        return None
    for other, others in by_agent.items():
        if other == agent or not others:
            continue
        for message in others[-1].messages:
            content = message.get("content") if isinstance(message, dict) else None
            envelope = _envelope(content)
            if envelope is not None and envelope.sender == agent \
                    and envelope.content.strip() == text:
                return DROPPED_REPLIES.verdict(
                    Status.FAIL, None,
                    f"{other}'s conversation holds an envelope of {agent} ({envelope.tag}) "
                    f"with the text of its reply {dropped.number}, whose model call was in "
                    "flight when a stop ended its turn", [], [content])
    return None


def _envelope(content: Any) -> Envelope | None:
    """The envelope a message's content is, if it is one."""
    if not isinstance(content, str) or not content.startswith(HEADER_MARK):
        return None
    try:
        return parse(content)
    except ParseError:
        return None


def _without_ids(message: Any) -> Any:
    """A normal assistant message with its tool calls' ids left out (a router may give a
    kept reply's calls ids of its own)."""
    if not isinstance(message, dict) or not message.get("tool_calls"):
        return message
    return {**message, "tool_calls": [{k: v for k, v in c.items() if k != "id"}
                                      for c in message["tool_calls"]]}


_ID_LINE = re.compile(r"\A[^\n]*\nid: ([^\n]+)\n")


def _envelope_id(message: Any) -> str | None:
    if not isinstance(message, dict) or message.get("role") not in ("user", "tool"):
        return None
    content = message.get("content")
    if not isinstance(content, str) or not content.startswith(HEADER_MARK):
        return None
    found = _ID_LINE.match(content)
    return found[1] if found else None


def _no_duplicates(by_agent: dict[str, list[ModelCall]]) -> Verdict:
    """TW-DEL-002: no message reaches its receiver twice, a restart included."""
    for agent, calls in by_agent.items():
        if not calls:
            continue
        seen: set[str] = set()
        for message in calls[-1].messages:
            message_id = _envelope_id(message)
            if message_id is None:
                continue
            if message_id in seen:
                return NO_DUPLICATES.verdict(Status.FAIL, None,
                               f"{agent}'s conversation holds message {message_id} twice")
            seen.add(message_id)
    return NO_DUPLICATES.verdict(Status.PASS)


def _repeats_restore(run: Run) -> Verdict:
    """TW-DUR-004, TW-DUR-005: after a restart, the model call a router makes again (one the
    crash left unanswered, or one whose reply it had not kept) begins with the very
    conversation the call before the crash held; the batch drain may add messages after it."""
    for repeat in run.repeats:
        # A reply the router had got past before the crash (a later call of the same agent
        # came) was durable then; asking for it again means the router lost its state.
        later = [c for c in run.calls if c.agent == repeat.agent and c.life < repeat.life
                 and c.number > repeat.number]
        if later:
            return RESTORED.verdict(Status.FAIL, None,
                           f"after the restart, {repeat.agent} asks again for reply "
                           f"{repeat.number}, though before the crash it had made the model "
                           f"call for reply {later[-1].number}: the router came back from an "
                           "older state than it had reached")
    for index, call in enumerate(run.calls):
        again = next((c for c in run.calls[index + 1:]
                      if c.agent == call.agent and c.number == call.number), None)
        if again is None:
            continue
        kept = again.messages[:len(call.messages)]
        if [_normal(m) for m in kept] != [_normal(m) for m in call.messages]:
            return RESTORED.verdict(Status.FAIL, None,
                           f"after the restart, {call.agent}'s model call for reply "
                           f"{call.number} does not begin with the conversation it held before",
                           [_normal(m) for m in call.messages], [_normal(m) for m in kept])
    return RESTORED.verdict(Status.PASS)


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
                return TOOL_SET.verdict(Status.FAIL, ("TW-CERT-009",),
                               f"model call {call.number} of {agent} offers "
                               f"{sorted(offered) or 'no protocol tool'}",
                               sorted(wanted), sorted(offered))
    return TOOL_SET.verdict(Status.PASS)


def _opening_problem(call: ModelCall, request: str) -> str | None:
    """What is wrong with the first messages of one model call's conversation, if anything:
    exactly one system message, then the request (the Team Leader) or the Task envelope
    that created the sub-agent, from the Team Leader."""
    head = call.messages[:2]
    roles = [m.get("role") if isinstance(m, dict) else None for m in head]
    if roles != ["system", "user"] or not isinstance(head[0].get("content"), str):
        found = [m.get("role") if isinstance(m, dict) else m for m in call.messages[:3]]
        return f"begins with the roles {found}, not one system message and then a user message"
    if sum(1 for m in call.messages if isinstance(m, dict) and m.get("role") == "system") != 1:
        return "holds more than one system message"
    first = head[1].get("content")
    if call.agent == LEADER_NAME:
        if first != request:
            return f"its first user message is not the request, verbatim: {first!r:.200}"
        return None
    try:
        envelope = parse(first) if isinstance(first, str) else None
    except ParseError:
        envelope = None
    if envelope is None or envelope.tag != "Task" or envelope.sender != LEADER_NAME:
        return f"its first user message is not the Team Leader's Task envelope: {first!r:.200}"
    return None


def _opening(run: Run) -> Verdict:
    """TW-TOOL-043, TW-TOOL-044 (and TW-CERT-002, TW-CERT-006): every conversation opens
    with one system message, then the request (the Team Leader) or the sub-agent's Task."""
    for call in run.calls:
        problem = _opening_problem(call, run.scenario.request)
        if problem is not None:
            return OPENING_CHECK.verdict(Status.FAIL, None,
                           f"model call {call.number} of {call.agent} {problem}")
    return OPENING_CHECK.verdict(Status.PASS)


def _expectations(run: Run, numbered: dict[str, dict[int, ModelCall]]) -> list[Verdict]:
    verdicts = []
    for expectation in run.scenario.expectations:
        name = f"{expectation.agent} call {expectation.call}"
        cited = expectation.requirements or run.scenario.requirements  # TW-CERT-030
        calls = numbered.get(expectation.agent, {})
        wanted = [_normal(m) for m in expectation.appended]
        if expectation.call not in calls:
            made = sorted(calls)
            said = f"{expectation.agent} made {len(calls)} model calls, not {expectation.call}" \
                if made == list(range(1, len(made) + 1)) else \
                f"{expectation.agent} made no model call for reply {expectation.call} (its " \
                f"calls asked for replies {', '.join(map(str, made))})"
            verdicts.append(Verdict(name, Status.FAIL, cited, said,
                                    wanted, None))
            continue
        got = [_normal(m) for m in appended(calls, expectation.call)]
        if run.scenario.profile == "astrion":  # envelopes by their meaning (TW-CERT-027)
            got = with_astrion_statuses(read_messages(got, expectation.agent))
            wanted = with_astrion_statuses(wanted)  # either name of a state (TW-PROF-039)
        wanted = _unless_offered(wanted, got, calls.get(expectation.call - 1))
        wanted = with_further_members(_optional_left_out(with_placeholders(wanted, got), got), got)
        if matches(wanted, got):  # markers are resolved by now; true is not 1
            verdicts.append(Verdict(name, Status.PASS, cited))
        else:
            found = first_difference(wanted, got)
            where = "" if found is None else f"; first difference at {found}"
            verdicts.append(Verdict(name, Status.FAIL, cited,
                                    "the messages appended before this call differ from the "
                                    f"expected ones{where}", wanted, got))
    return verdicts


def _is_send_result(value: Any) -> bool:
    """Whether a tool result's JSON has the shape of a successful send_message_to_sub_agent
    result (TW-TOOL-011)."""
    return isinstance(value, dict) and value.get("success") is True \
        and "message_id" in value and "display_name" in value


def _optional_left_out(wanted: list[Any], got: list[Any]) -> list[Any]:
    """The expected messages without the optional members (TW-TOOL-012's ``delivery``) the
    router left out of the matching result: whether it had to send them is the feature
    check's question; a member it does send is compared."""
    sent = {m.get("tool_call_id"): m.get("json") for m in got
            if isinstance(m, dict) and m.get("role") == "tool"}
    out = []
    for message in wanted:
        result = message.get("json") if isinstance(message, dict) else None
        received = sent.get(message.get("tool_call_id")) if isinstance(message, dict) else None
        if isinstance(result, dict) and _is_send_result(result) and "delivery" in result \
                and isinstance(received, dict) and "delivery" not in received:
            message = {**message, "json": {k: v for k, v in result.items() if k != "delivery"}}
        out.append(message)
    return out


def _unless_offered(wanted: list[Any], got: list[Any], made_by: ModelCall | None) -> list[Any]:
    """The expected messages with each result marked UNLESS_OFFERED taken as what the router
    sent when the model call that made the tool call offered the tool, and without the
    marker otherwise."""
    offered = _offered(made_by.tools) if made_by is not None else set()
    sent = {m.get("tool_call_id"): m for m in got
            if isinstance(m, dict) and m.get("role") == "tool"}
    out = []
    for message in wanted:
        result = message.get("json") if isinstance(message, dict) else None
        if isinstance(result, dict) and UNLESS_OFFERED in result:
            if result[UNLESS_OFFERED] in offered and message.get("tool_call_id") in sent:
                message = sent[message.get("tool_call_id")]
            else:
                message = {**message, "json": {k: v for k, v in result.items()
                                               if k != UNLESS_OFFERED}}
        out.append(message)
    return out


def _send_delivery(by_agent: dict[str, list[ModelCall]],
                   capabilities: Capabilities) -> Verdict | None:
    """TW-TOOL-012 as the router declares it (TW-CERT-016): a router that declares
    send-delivery must say ``delivery`` in every send result; one that does not is checked
    only where it does. None when the run sent no message."""
    results = []
    for calls in by_agent.values():
        if not calls:
            continue
        sends = set()
        for message in calls[-1].messages:
            if not isinstance(message, dict):
                continue
            for tool_call in message.get("tool_calls") or []:
                function = tool_call.get("function") if isinstance(tool_call, dict) else None
                if isinstance(function, dict) \
                        and function.get("name") == "send_message_to_sub_agent":
                    sends.add(tool_call.get("id"))
            if message.get("role") == "tool" and message.get("tool_call_id") in sends:
                with contextlib.suppress(ValueError, TypeError):
                    value = json.loads(message.get("content") or "")
                    if _is_send_result(value):
                        results.append((str(message["tool_call_id"]), value))
    if not results:
        return None
    missing = [call_id for call_id, value in results if "delivery" not in value]
    if not missing:
        return SEND_DELIVERY.verdict(Status.PASS)
    if capabilities.declares("send-delivery"):
        return SEND_DELIVERY.verdict(Status.FAIL, None,
                       f"the router declares send-delivery, but the send_message_to_sub_agent "
                       f"results of {', '.join(missing)} carry no delivery")
    return SEND_DELIVERY.verdict(Status.SKIP, None,
                   "the router does not declare send-delivery and its send_message_to_sub_agent "
                   f"results ({', '.join(missing)}) carry no delivery: not checked")
