"""Building blocks of the transcript vectors: chat messages, envelopes, tool calls and the
small sessions the cases of several families start from."""

from __future__ import annotations

import base64
import copy
import json
import re
from typing import Any

from conformance.sources.transcripts.builders import Agent, SessionBuilder, small_session
from conformance.sources.transcripts.spec_session import SpecSession

from teamwire.envelope import Envelope, MessageType, render
from teamwire.validator.rules import REGISTRY

TL, UIO, FSE = "Team Leader", "UI Operator_1", "Full-Stack Engineer_1"


# -- building blocks -------------------------------------------------------------------------


def env(
    sender: str,
    label: str,
    message_id: str,
    tag: str,
    content: str,
    attrs: tuple[tuple[str, str], ...] = (),
    receiver: str | None = None,
) -> str:
    return render(Envelope(sender, label, message_id, tag, content, attrs, receiver))


def astrion_ask(attrs: tuple[tuple[str, str], ...], receiver: str | None = None) -> str:
    """An Ask of UI Operator_1 with an astrion id, attributes and header receiver."""
    return env(UIO, "提问", "msg_8d02e4a7c5", "Ask", "Ready?", attrs, receiver)


def user(text: str) -> dict[str, Any]:
    return {"role": "user", "content": text}


def say(text: str) -> dict[str, Any]:
    return {"role": "assistant", "content": text}


def calls(name: str, arguments: Any, call_id: str = "call_1", text: str = "") -> dict[str, Any]:
    raw = arguments if isinstance(arguments, str) else json.dumps(arguments, ensure_ascii=False)
    return {
        "role": "assistant",
        "content": text,
        "tool_calls": [{"id": call_id, "type": "function", "function": {"name": name, "arguments": raw}}],
    }


def result(content: Any, call_id: str = "call_1") -> dict[str, Any]:
    text = content if isinstance(content, str) else json.dumps(content, ensure_ascii=False)
    return {"role": "tool", "tool_call_id": call_id, "content": text}


def error(code: str) -> dict[str, Any]:
    return {"success": False, "error": {"code": code, "message": f"failed: {code}"}}


OK = {"success": True}
CUSTOM_ROLE = {"role_id": "api-designer", "name": "API Designer",
               "description": "Designs HTTP APIs.", "prompt": "Use REST."}
ROLE_ADDED = {"success": True, "role_id": "api-designer", "name": "API Designer"}
TASK = env(TL, "任务发布", "task_001", "Task", "Design the colour palette.")
ASK_TL = env(UIO, "提问", "ask_uio_001", "Ask", "Which shade of blue?")
OUT1 = env(UIO, "任务进度输出", "out_uio_001", "Output", "Reviewing the styles.")
OUT2 = env(UIO, "任务完成汇报", "out_uio_002", "Output", "The palette is done.")
ANSWER = env(TL, "回答", "ans_tl_001", "Answer", "Navy.", (("question_id", "ask_uio_001"),))
ASK_MASTER = {"question": "Which shade of blue?", "question_id": "ask_uio_001"}
RUN_RESULT = '<result agent="UI Operator_1" state="completed">\n<output>\nDone.\n</output>\n</result>'
TIMED_OUT = ('<result agent="UI Operator_1" state="timeout">\n<error>\nThe turn took longer than '
             '600 s.\n</error>\n</result>')


def case(
    description: str,
    input_: Any,
    expect: list[tuple[str, str | None, int | None]],
    *,
    profile: str = "strict",
    agent: str | None = None,
    config: dict[str, Any] | None = None,
    text: str | None = None,
    raw: bytes | None = None,
    jsonl: bool = False,
    requirements: tuple[str, ...] = (),
) -> dict[str, Any]:
    """One vector. Its ``requirements`` are those of the rule its description starts with and
    of every rule it expects (the rule registry's), the ids its description names, and
    ``requirements`` for what the case tests beyond its rules."""
    out: dict[str, Any] = {"description": description, "profile": profile}
    if agent is not None:
        out["agent"] = agent
    if config:
        out["config"] = config
    if jsonl:
        out["format"] = "jsonl"
    if raw is not None:
        out["input_base64"] = base64.b64encode(raw).decode()
    elif text is not None:
        out["input_text"] = text
    else:
        out["input"] = input_
    out["expected"] = [{"rule": r, "agent": a, "index": i} for r, a, i in expect]
    out["requirements"] = requirement_ids(description, [r for r, _, _ in expect], requirements)
    return out


REQUIREMENT_ID = re.compile(r"TW-([A-Z]+)-([0-9]{3})")
REQUIREMENT_RANGE = re.compile(r"(TW-[A-Z]+-[0-9]{3}) to (TW-[A-Z]+-[0-9]{3})")
"""A range of ids in a description, "TW-PROF-026 to TW-PROF-029", within one family."""
FAMILY_ORDER = ("ENV", "NAME", "TYPE", "ID", "MSG", "TOOL", "ROUTE", "DEL", "DUR", "RES", "VER",
                "SEC", "PROF", "CERT")
"""The families in the order of the specification and its index."""


def requirement_ids(description: str, rules: list[str], extra: tuple[str, ...]) -> list[str]:
    """The requirement ids a case tests, in the order of the index."""
    codes = [description.split(" ", 1)[0], *rules]
    ids = {req for code in codes if code in REGISTRY for req in REGISTRY[code].requirements}
    ids |= {m.group(0) for m in REQUIREMENT_ID.finditer(description)}
    for first, last in REQUIREMENT_RANGE.findall(description):
        if first[:-3] == last[:-3]:
            ids |= {f"{first[:-3]}{n:03d}" for n in range(int(first[-3:]), int(last[-3:]) + 1)}
    ids |= set(extra)

    def order(requirement: str) -> tuple[int, int]:
        match = REQUIREMENT_ID.fullmatch(requirement)
        if match is None:
            raise ValueError(f"not a requirement id: {requirement!r}")
        return FAMILY_ORDER.index(match.group(1)), int(match.group(2))

    return sorted(ids, key=order)


def bundle_with(edit: Any) -> dict[str, Any]:
    """A copy of the clean small session changed by ``edit(bundle)``."""
    bundle = copy.deepcopy(small_session())
    edit(bundle)
    return bundle


def late_answer(answered: bool, late: str = "Blue.") -> dict[str, Any]:
    """UI Operator_1's ask_master times out; the leader's Answer arrives later as a user
    message (accepted by profile astrion when an answer call sent it, TW-PROF-013), with the
    text ``late`` (the answer call gave "Blue.")."""
    b = SessionBuilder()
    ui = b.create("ui-operator", "UI Operator", 1, "Design the colour palette.")
    ask = b.ask_master(ui, "Blue or green for the primary colour?")
    b.result(ui, ask.call_id, {"success": False, "error": {
        "code": "timeout", "message": "No answer within 600 seconds."}})
    b.say(ui, "No answer yet; the palette uses blue for now.")
    if answered:
        call_id = b.call(b.leader, "answer_sub_agent_question", {
            "agent_id": 1, "role_id": "ui-operator", "question_id": ask.question_id,
            "answer": "Blue."})
        b.result(b.leader, call_id, {"success": True, "display_name": ui.name,
                                     "question_id": ask.question_id})
    b.deliver(ui, render(Envelope(sender=TL, label="回答", id=b.ids.allocate(
        MessageType.ANSWER, TL, "team-leader"), tag="Answer", content=late,
        attributes=(("question_id", ask.question_id),))))
    b.say(ui, "Confirmed: the primary colour is blue.")
    return b.bundle()


def late_answer_from_peer() -> tuple[dict[str, Any], int, int]:
    """``late_answer(answered=True)``, but the late Answer comes from Full-Stack Engineer_1,
    not from the leader whose answer call gave it; and where the Answer and that call are."""
    b = SessionBuilder()
    ui = b.create("ui-operator", "UI Operator", 1, "Design the colour palette.")
    b.create("full-stack-engineer", "Full-Stack Engineer", 1, "Build the API.")
    ask = b.ask_master(ui, "Blue or green for the primary colour?")
    b.result(ui, ask.call_id, {"success": False, "error": {
        "code": "timeout", "message": "No answer within 600 seconds."}})
    b.say(ui, "No answer yet; the palette uses blue for now.")
    call_id = b.call(b.leader, "answer_sub_agent_question", {
        "agent_id": 1, "role_id": "ui-operator", "question_id": ask.question_id,
        "answer": "Blue."})
    call_at = len(b.leader.messages) - 1
    b.result(b.leader, call_id, {"success": True, "display_name": ui.name,
                                 "question_id": ask.question_id})
    b.deliver(ui, render(Envelope(sender=FSE, label="回答", id="ans_fse_001", tag="Answer",
                                  content="Blue.", attributes=(("question_id", ask.question_id),))))
    late_at = len(ui.messages) - 1
    b.say(ui, "Confirmed: the primary colour is blue.")
    return b.bundle(), late_at, call_at


def numbered_after_highest() -> dict[str, Any]:
    """A UI Operator created with agent_id 3, then one without agent_id: profile astrion
    numbers it 4, one more than the highest its role has had (TW-PROF-015)."""
    b = SessionBuilder()
    third = b.create("ui-operator", "UI Operator", 3, "Design the header.")
    fourth = b.create("ui-operator", "UI Operator", 4, "Design the footer.")
    for message in b.leader.messages:
        for call in message.get("tool_calls") or ():
            arguments = json.loads(call["function"]["arguments"])
            if arguments.get("agent_id") == 4:
                del arguments["agent_id"]
                call["function"]["arguments"] = json.dumps(arguments)
    b.say(third, "The header is designed.")
    b.say(fourth, "The footer is designed.")
    return b.bundle()


def numbered_after_highest_not_last() -> dict[str, Any]:
    """A UI Operator created with agent_id 2, then one with agent_id 1, then one without
    agent_id: profile astrion numbers it 3, one more than the highest its role has had, not
    one more than the last (TW-PROF-015)."""
    b = SessionBuilder()
    second = b.create("ui-operator", "UI Operator", 2, "Design the header.")
    first = b.create("ui-operator", "UI Operator", 1, "Design the footer.")
    third = b.create("ui-operator", "UI Operator", 3, "Design the sidebar.")
    without_agent_id(b, 3)
    b.say(second, "The header is designed.")
    b.say(first, "The footer is designed.")
    b.say(third, "The sidebar is designed.")
    return b.bundle()


def without_agent_id(b: SessionBuilder, agent_id: int) -> None:
    """Drop agent_id from the leader's create_sub_agent call that gives ``agent_id``."""
    for message in b.leader.messages:
        for call in message.get("tool_calls") or ():
            arguments = json.loads(call["function"]["arguments"])
            if call["function"]["name"] == "create_sub_agent" and arguments.get("agent_id") == agent_id:
                del arguments["agent_id"]
                call["function"]["arguments"] = json.dumps(arguments)


def numbered_after_preexisting(number: int, before: tuple[tuple[str, str, int], ...]) -> dict[str, Any]:
    """Sub-agents ``before`` (name, role id, agent id) existed before the leader's conversation;
    the leader creates a UI Operator without agent_id, whose conversation is UI Operator_{number}.
    Profile astrion numbers it one more than the highest its role has had (TW-PROF-015)."""
    b = SessionBuilder()
    for name, role_id, agent_id in before:
        b.agents[name] = Agent(name, role_id, agent_id,
                               [{"role": "system", "content": "You are a sub-agent."}])
    new = b.create("ui-operator", "UI Operator", number, "Design the footer.")
    without_agent_id(b, number)
    b.say(new, "The footer is designed.")
    return b.bundle()


def numbered_after_failed_create(number: int) -> dict[str, Any]:
    """The leader's first create_sub_agent of a UI Operator, without agent_id, fails with
    store-failed (it did nothing); the second, also without agent_id, succeeds: the role has had
    no sub-agent, so it is number 1 (TW-PROF-015). Its conversation is UI Operator_{number}."""
    b = SessionBuilder()
    call_id = b.call(b.leader, "create_sub_agent", {"role_id": "ui-operator", "task": "Design the palette."})
    b.result(b.leader, call_id, {"success": False, "error": {
        "code": "store-failed", "message": "The store could not write the call."}})
    ui = b.create("ui-operator", "UI Operator", number, "Design the palette.")
    without_agent_id(b, number)
    b.say(ui, "The palette is designed.")
    return b.bundle()


def lost_peer_ask(terminated: bool, leader: bool = True) -> dict[str, Any]:
    """Full-Stack Engineer_1's ask_other_agent to UI Operator_1 times out (so it was sent) and
    its Ask never arrives. With ``terminated``, the leader terminated UI Operator_1, which may
    have discarded the queued Ask (TW-ROUTE-020); the termination comes early in the leader's
    conversation, the ask late in the asker's: two conversations give no order between them.
    Without ``leader``, the bundle holds no Team Leader conversation."""
    b = SessionBuilder()
    ui = b.create("ui-operator", "UI Operator", 1, "Design the palette.")
    fse = b.create("full-stack-engineer", "Full-Stack Engineer", 1, "Build the API.")
    if terminated:
        b.terminate(ui)
    for n in range(4):
        b.work(fse, "", "read_file", {"path": f"api{n}.md"}, "POST /api/users")
    ask = b.ask_other(fse, ui, "Which colours?", "Asking UI Operator_1 about the colours.")
    ui.messages.pop()  # the Ask
    b.result(fse, ask.call_id, {"success": False, "error": {"code": "timeout", "message": "No answer."}})
    b.say(fse, "The API is done.")
    bundle = b.bundle()
    if not leader:
        del bundle["agents"][TL]
    return bundle


def message_after_termination() -> tuple[dict[str, Any], int]:
    """The leader terminates UI Operator_1, then a send_message_to_sub_agent to it succeeds
    and its Message never arrives: a termination before the send discarded nothing of it.
    Also where that call is."""
    b = SessionBuilder()
    ui = b.create("ui-operator", "UI Operator", 1, "Design the palette.")
    b.terminate(ui)
    b.message(ui, "Use navy.")
    ui.messages.pop()  # the Message
    return b.bundle(), len(b.leader.messages) - 2


def answered_by_question_id(asked: bool) -> tuple[dict[str, Any], int]:
    """Profile astrion: the leader answers by question_id alone (TW-PROF-018), an Ask UI
    Operator_1 put to it (``asked``) or an id no Ask carries; and where that answer call is."""
    b = SessionBuilder()
    ui = b.create("ui-operator", "UI Operator", 1, "Design the colour palette.")
    ask = b.ask_master(ui, "Blue or green for the primary colour?", "Asking about the colour.")
    question_id = ask.question_id if asked else "ask_uio_009"
    call_id = b.call(b.leader, "answer_sub_agent_question", {"question_id": question_id,
                                                              "answer": "Blue."})
    at = len(b.leader.messages) - 1
    b.result(b.leader, call_id, {"success": True, "display_name": ui.name, "question_id": question_id})
    if asked:
        b.result(ui, ask.call_id, render(Envelope(
            sender=TL, label="回答", id=b.ids.allocate(MessageType.ANSWER, TL, "team-leader"),
            tag="Answer", content="Blue.", attributes=(("question_id", question_id),))))
    else:
        b.result(ui, ask.call_id, {"success": False, "error": {
            "code": "timeout", "message": "No answer within 600 seconds."}})
    b.say(ui, "The palette uses blue.")
    return b.bundle(), at


def stopped_while_asking(stop: bool) -> dict[str, Any]:
    """UI Operator_1 asks the leader; the leader (astrion) stops it instead of answering, then
    sends it a message, which starts its next turn: its ask keeps no result (TW-PROF-025)."""
    b = SessionBuilder()
    ui = b.create("ui-operator", "UI Operator", 1, "Design the colour palette.")
    b.ask_master(ui, "Which shade of blue?")
    if stop:
        call_id = b.call(b.leader, "stop_sub_agent", {"agent_id": 1})
        b.result(b.leader, call_id, {"success": True, "agent_id": 1, "role_id": "ui-operator",
                                     "display_name": ui.name, "status": "idle"})
    b.message(ui, "Use navy for now.")
    b.say(ui, "Using navy.")
    return b.bundle()


def said_run_result() -> dict[str, Any]:
    """UI Operator_1's last natural output is itself a run result, relayed as it is."""
    b = SessionBuilder()
    ui = b.create("ui-operator", "UI Operator", 1, "Design the colour palette.")
    b.say(ui, RUN_RESULT)
    return b.bundle()


def reports(swapped: bool) -> tuple[dict[str, Any], int]:
    """A progress report and a completion of UI Operator_1, in the order said or swapped;
    and where the completion reaches the leader."""
    b = SessionBuilder()
    ui = b.create("ui-operator", "UI Operator", 1, "Design the colour palette.")
    b.work(ui, "Reading the existing styles.", "read_file", {"path": "styles.css"}, "body {}")
    b.say(ui, "The palette is done: blue and grey.")
    leader = b.leader.messages
    progress = next(i for i, m in enumerate(leader) if "Reading the existing" in m["content"])
    done = next(i for i, m in enumerate(leader) if "The palette is done" in m["content"])
    if swapped:
        leader[progress], leader[done] = leader[done], leader[progress]
        progress, done = done, progress
    return b.bundle(), done


def discarded_with_target() -> dict[str, Any]:
    """The leader sends UI Operator_1 a message, then terminates it in the same reply: the
    message, still queued, goes with it (TW-ROUTE-020)."""
    b = SessionBuilder()
    ui = b.create("ui-operator", "UI Operator", 1, "Design the palette.")
    b.leader.messages.append({"role": "assistant", "content": "", "tool_calls": [
        {"id": "call_m", "type": "function", "function": {
            "name": "send_message_to_sub_agent",
            "arguments": json.dumps({"agent_id": 1, "role_id": "ui-operator",
                                     "message": "Stop here."})}},
        {"id": "call_t", "type": "function", "function": {
            "name": "terminate_sub_agent",
            "arguments": json.dumps({"agent_id": 1, "role_id": "ui-operator"})}}]})
    b.result(b.leader, "call_m", {"success": True, "display_name": ui.name,
                                  "message_id": "msg_tl_001"})
    b.result(b.leader, "call_t", {"success": True, "agent_id": 1, "role_id": "ui-operator",
                                  "display_name": ui.name, "status": "terminated"})
    return b.bundle()


def forbidden_create() -> tuple[dict[str, Any], int]:
    """UI Operator_1 calls the leader's create_sub_agent for a sub-agent that exists, and its
    result claims success: the call is reported (TW403) and promises no Task."""
    b = SessionBuilder()
    ui = b.create("ui-operator", "UI Operator", 1, "Design the palette.")
    b.create("full-stack-engineer", "Full-Stack Engineer", 1, "Build the API.")
    call = b.call(ui, "create_sub_agent", {"role_id": "full-stack-engineer", "agent_id": 1,
                                           "task": "Help me."})
    b.result(ui, call, {"success": True, "display_name": "Full-Stack Engineer_1"})
    return b.bundle(), len(ui.messages) - 2


def answered_in_passing(asker: str = TL) -> tuple[SessionBuilder, Agent]:
    """UI Operator_1 answers with text beside a tool call ("Working on it."). The question is
    the leader's ask_sub_agent, or (``asker`` FSE) Full-Stack Engineer_1's notification: an
    ask_other_agent delivered as a Message, which the next natural output answers."""
    b = SessionBuilder()
    ui = b.create("ui-operator", "UI Operator", 1, "Design the palette.")
    if asker == TL:
        question_id = b.ids.allocate(MessageType.ASK, TL, "team-leader")
        call_id = b.call(b.leader, "ask_sub_agent", {"agent_id": 1, "role_id": "ui-operator",
                                                      "question": "Status?",
                                                      "question_id": question_id})
        b.deliver(ui, render(Envelope(sender=TL, label="提问", id=question_id, tag="Ask",
                                      content="Status?")))
        waiting = b.leader
    else:
        waiting = b.create("full-stack-engineer", "Full-Stack Engineer", 1, "Build the API.")
        question_id = b.ids.allocate(MessageType.MESSAGE, FSE, "full-stack-engineer")
        call_id = b.call(waiting, "ask_other_agent", {
            "target_agent_id": 1, "role_id": "ui-operator", "content": "The API is up.",
            "message_id": question_id}, "Telling UI Operator_1.")
        b.deliver(b.leader, render(Envelope(
            sender=FSE, label="任务进度输出", id=b.ids.allocate(MessageType.PROGRESS, FSE),
            tag="Output", content="Telling UI Operator_1.")))
        b.deliver(ui, render(Envelope(sender=FSE, label="消息", id=question_id, tag="Message",
                                      content="The API is up.")))
    read = b.call(ui, "read_file", {"path": "palette.md"}, "Working on it.")
    b.result(waiting, call_id, render(Envelope(
        sender=UIO, label="回答", id=b.ids.allocate(MessageType.ANSWER, UIO, "ui-operator"),
        tag="Answer", content="Working on it.", attributes=(("question_id", question_id),))))
    b.result(ui, read, "blue and grey")
    return b, ui


def answer_then_report(asker: str = TL) -> dict[str, Any]:
    """``answered_in_passing``, then UI Operator_1 ends its turn saying the same: the first
    is the Answer, the second the completion."""
    b, ui = answered_in_passing(asker)
    b.say(ui, "Working on it.")
    return b.bundle()


def messages(bundle: dict[str, Any], name: str) -> list[dict[str, Any]]:
    return bundle["agents"][name]["messages"]  # type: ignore[no-any-return]


def find(bundle: dict[str, Any], name: str, predicate: Any) -> int:
    for i, m in enumerate(messages(bundle, name)):
        if predicate(m):
            return i
    raise LookupError(name)


def is_delivery(sender_label: str) -> Any:
    return lambda m: m["role"] == "user" and m["content"].startswith(f"来自 {sender_label}")


def is_call(tool: str) -> Any:
    return lambda m: any(c["function"]["name"] == tool for c in m.get("tool_calls") or ())



def spec_team() -> tuple[SpecSession, Any, Any]:
    """A session built from the specification's rules (spec_session): the Team Leader creates
    UI Operator_1 and Full-Stack Engineer_1."""
    s = SpecSession()
    return s, s.create("ui-operator", "UI Operator", 1), s.create("full-stack-engineer",
                                                                   "Full-Stack Engineer", 1)

