"""Profile astrion against the text of its chapter (spec/12-profile-astrion.md).

The bundles here are written by hand from the specification, not from the linter: a small
session of one Team Leader and four sub-agents is played out once, and each astrion difference
can be switched on alone or all together. Every bundle keeps the rest of the protocol intact
(flows across conversations, answers matching asks, deliveries matching sends, per-sender
order), so under profile astrion it must lint clean, while profile strict must flag each
difference. A last group puts real protocol errors into astrion bundles: the profile widens
the dialect, it does not switch checks off.
"""

from __future__ import annotations

import copy
import hashlib
import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from conformance.sources.transcripts.builders import bundle_of

from teamwire.cli import main
from teamwire.envelope import Profile
from teamwire.validator import LintOptions, lint_value

SPEC_DIR = Path(__file__).resolve().parents[2] / "spec"

LEADER = "Team Leader"
LEADER_ROLE = "team-leader"

# label, tag and id prefix of each message type (spec chapters 03 and 04)
TYPES: dict[str, tuple[str, str, str]] = {
    "task": ("任务发布", "Task", "task_"),
    "progress": ("任务进度输出", "Output", "out_"),
    "completion": ("任务完成汇报", "Output", "out_"),
    "ask": ("提问", "Ask", "ask_"),
    "message": ("消息", "Message", "msg_"),
    "answer": ("回答", "Answer", "ans_"),
}
ASTRION_COMPLETION = "任务结束汇报"

# Each astrion difference this file can switch on, with the requirement that allows it.
FEATURES: dict[str, str] = {
    "receiver_header": "TW-PROF-006",        # 来自 A 向 B 的…
    "target_attribute": "TW-PROF-007",       # target="B"
    "subtype_attribute": "TW-PROF-008",      # subtype="progress_output" …
    "ask_question_id": "TW-PROF-009",        # question_id on the Ask tag
    "end_label": "TW-PROF-010",              # 任务结束汇报
    "hex_ids": "TW-PROF-011",                # msg_ + 10 hex for every type
    "answer_reuses_id": "TW-PROF-012",       # the Answer's id is its question's id
    "intent": "TW-PROF-014",                 # intent on every tool call
    "create_without_agent_id": "TW-PROF-015",
    "stop_sub_agent": "TW-PROF-016",
    "answer_by_question_id": "TW-PROF-018",  # answer_sub_agent_question(question_id, answer)
    "status_agent_ids": "TW-PROF-019",       # get_sub_agent_status(agent_ids)
    "custom_body_prompt": "TW-PROF-020",     # create_custom_agent(role_id, name, body_prompt)
    "ask_master_without_id": "TW-PROF-021",
    "ask_other_question": "TW-PROF-022",     # ask_other_agent(target_agent_id, question, question_id)
    "ask_other_without_id": "TW-PROF-022",   # … and without the optional question_id
    "answer_other_question_id": "TW-PROF-023",
}
# Features that only exist together with another one.
IMPLIES: dict[str, tuple[str, ...]] = {
    "answer_reuses_id": ("hex_ids",),
    "ask_other_without_id": ("ask_other_question",),
}
ALL_FEATURES = frozenset(FEATURES)


# -- writing a session by hand ------------------------------------------------------------------


def envelope(sender: str, mtype: str, message_id: str, content: str,
             attributes: Iterable[tuple[str, str]] = (), receiver: str | None = None,
             label: str | None = None) -> str:
    """The envelope text of chapter 01 (or the astrion header of TW-PROF-006 with a receiver)."""
    default_label, tag, _ = TYPES[mtype]
    label = label or default_label
    header = f"来自 {sender} 向 {receiver} 的{label}" if receiver else f"来自 {sender} 的{label}"
    attrs = "".join(f' {name}="{value}"' for name, value in attributes)
    return "\n".join([header, f"id: {message_id}", "", f"<{sender}>", f"<{tag}{attrs}>",
                      content, f"</{tag}>", f"</{sender}>"])


@dataclass
class Agent:
    name: str
    role_id: str
    role_name: str
    agent_id: int | None
    abbr: str
    messages: list[dict[str, Any]] = field(default_factory=list)


@dataclass
class Ask:
    asker: Agent
    answerer: Agent
    call_id: str
    question_id: str
    mtype: str = "ask"


class Session:
    """Appends what a router would append, in the order it would, in the chosen dialect."""

    def __init__(self, features: Iterable[str] = ()) -> None:
        on = set(features)
        for feature in list(on):
            on.update(IMPLIES.get(feature, ()))
        self.on = frozenset(on)
        self.counters: dict[str, int] = {}
        self.calls = 0
        self.hex_seed = 0
        self.leader = Agent(LEADER, LEADER_ROLE, "Team Leader", None, "tl", [
            {"role": "system", "content": "You are the Team Leader of a web team."},
            {"role": "user", "content": "Build the registration page and its API."}])
        self.agents: dict[str, Agent] = {LEADER: self.leader}
        self.instances: dict[str, int] = {}

    # ids (chapter 04, or TW-PROF-011)

    def new_id(self, mtype: str, sender: Agent) -> str:
        if "hex_ids" in self.on:
            self.hex_seed += 1
            return "msg_" + hashlib.sha256(f"astrion-{self.hex_seed}".encode()).hexdigest()[:10]
        # one counter per (prefix, abbreviation) and one for tasks (TW-ID-007)
        key = "task" if mtype == "task" else f"{TYPES[mtype][2]}{sender.abbr}"
        self.counters[key] = self.counters.get(key, 0) + 1
        return f"{key}_{self.counters[key]:03d}"

    # envelopes in the chosen dialect

    def wrap(self, mtype: str, sender: Agent, receiver: Agent, content: str, message_id: str,
             question_id: str | None = None) -> str:
        attrs: list[tuple[str, str]] = []
        if "target_attribute" in self.on:
            attrs.append(("target", receiver.name))
        if "subtype_attribute" in self.on:
            subtype = {"progress": "progress_output", "completion": "completion_report"}.get(mtype)
            if mtype == "ask":
                subtype = "ask_master" if receiver is self.leader else "ask_other"
            if subtype:
                attrs.append(("subtype", subtype))
        if mtype == "answer":
            attrs.append(("question_id", question_id or ""))
        elif mtype == "ask" and "ask_question_id" in self.on:
            attrs.append(("question_id", message_id))
        label = ASTRION_COMPLETION if mtype == "completion" and "end_label" in self.on else None
        header_receiver = receiver.name if "receiver_header" in self.on else None
        return envelope(sender.name, mtype, message_id, content, attrs, header_receiver, label)

    # conversation plumbing

    def call(self, agent: Agent, tool: str, arguments: dict[str, Any], text: str = "",
             intent: str | None = None) -> str:
        self.calls += 1
        call_id = f"call_{self.calls:03d}"
        if "intent" in self.on:
            arguments = {**arguments, "intent": intent or f"{tool} for {agent.name}"}
        agent.messages.append({"role": "assistant", "content": text, "tool_calls": [
            {"id": call_id, "type": "function",
             "function": {"name": tool, "arguments": json.dumps(arguments, ensure_ascii=False)}}]})
        return call_id

    @staticmethod
    def result(agent: Agent, call_id: str, content: str | dict[str, Any]) -> None:
        text = content if isinstance(content, str) else json.dumps(content, ensure_ascii=False)
        agent.messages.append({"role": "tool", "tool_call_id": call_id, "content": text})

    @staticmethod
    def deliver(receiver: Agent, text: str) -> None:
        receiver.messages.append({"role": "user", "content": text})

    def leader_says(self, text: str) -> None:
        self.leader.messages.append({"role": "assistant", "content": text})

    # leader tools

    def create_custom_agent(self, role_id: str, name: str, description: str, prompt: str) -> None:
        if "custom_body_prompt" in self.on:
            args: dict[str, Any] = {"role_id": role_id, "name": name, "body_prompt": prompt}
        else:
            args = {"role_id": role_id, "name": name, "description": description,
                    "prompt": prompt}
        call_id = self.call(self.leader, "create_custom_agent", args, intent=f"Add role {name}")
        self.result(self.leader, call_id, {"success": True, "role_id": role_id, "name": name})

    def create(self, role_id: str, role_name: str, abbr: str, task: str,
               agent_id: int | None = None) -> Agent:
        """create_sub_agent; without an explicit agent_id the next number of the role is used."""
        number = agent_id if agent_id is not None else self.instances.get(role_id, 0) + 1
        self.instances[role_id] = max(self.instances.get(role_id, 0), number)
        args: dict[str, Any] = {"role_id": role_id, "task": task}
        if agent_id is not None or "create_without_agent_id" not in self.on:
            args = {"agent_id": number, **args}
        call_id = self.call(self.leader, "create_sub_agent", args,
                            intent=f"Start {role_name} on its task")
        agent = Agent(f"{role_name}_{number}", role_id, role_name, number, abbr,
                      [{"role": "system", "content": f"You are {role_name} of a web team."}])
        self.agents[agent.name] = agent
        task_id = self.new_id("task", self.leader)
        self.result(self.leader, call_id, {"success": True, "agent_id": number,
                                           "role_id": role_id, "display_name": agent.name,
                                           "task_id": task_id})
        self.deliver(agent, self.wrap("task", self.leader, agent, task, task_id))
        return agent

    def send_message(self, target: Agent, text: str) -> None:
        call_id = self.call(self.leader, "send_message_to_sub_agent",
                            {"agent_id": target.agent_id, "message": text},
                            intent=f"Steer {target.name}")
        message_id = self.new_id("message", self.leader)
        self.result(self.leader, call_id, {"success": True, "display_name": target.name,
                                           "message_id": message_id})
        self.deliver(target, self.wrap("message", self.leader, target, text, message_id))

    def stop(self, target: Agent) -> None:
        call_id = self.call(self.leader, "stop_sub_agent", {"agent_id": target.agent_id},
                            intent=f"Pause {target.name}")
        self.result(self.leader, call_id, {"success": True, "agent_id": target.agent_id,
                                           "role_id": target.role_id,
                                           "display_name": target.name, "status": "idle"})

    def status(self, targets: list[Agent], states: list[str]) -> None:
        if "status_agent_ids" in self.on:
            call_id = self.call(self.leader, "get_sub_agent_status",
                                {"agent_ids": [t.agent_id for t in targets]},
                                intent="Check on the UI Operators")
            self.result(self.leader, call_id, {"success": True, "agents": [
                {"agent_id": t.agent_id, "role_id": t.role_id, "display_name": t.name,
                 "status": s} for t, s in zip(targets, states, strict=True)]})
            return
        for target, state in zip(targets, states, strict=True):
            call_id = self.call(self.leader, "get_sub_agent_status",
                                {"agent_id": target.agent_id})
            self.result(self.leader, call_id, {"success": True, "agent_id": target.agent_id,
                                               "role_id": target.role_id,
                                               "display_name": target.name, "status": state})

    def answer_master(self, ask: Ask, answer: str) -> None:
        if "answer_by_question_id" in self.on:
            args: dict[str, Any] = {"question_id": ask.question_id, "answer": answer}
        else:
            assert ask.asker.agent_id is not None
            args = {"agent_id": ask.asker.agent_id, "role_id": ask.asker.role_id,
                    "question_id": ask.question_id, "answer": answer}
        call_id = self.call(self.leader, "answer_sub_agent_question", args,
                            intent=f"Answer {ask.asker.name}")
        self.result(self.leader, call_id, {"success": True, "display_name": ask.asker.name,
                                           "question_id": ask.question_id})
        self.result(ask.asker, ask.call_id, self.answer_envelope(ask, self.leader, answer))

    def answer_envelope(self, ask: Ask, answerer: Agent, answer: str) -> str:
        answer_id = ask.question_id if "answer_reuses_id" in self.on else \
            self.new_id("answer", answerer)
        return self.wrap("answer", answerer, ask.asker, answer, answer_id, ask.question_id)

    # sub-agent behaviour

    def work(self, agent: Agent, text: str, tool: str, arguments: dict[str, Any],
             output: str) -> None:
        """An ordinary tool call; non-blank text reaches the leader as progress."""
        call_id = self.call(agent, tool, arguments, text)
        if text.strip():
            self.deliver(self.leader, self.wrap("progress", agent, self.leader, text,
                                                self.new_id("progress", agent)))
        self.result(agent, call_id, output)

    def finish(self, agent: Agent, text: str) -> None:
        """Natural output without tool calls: the turn ends with a completion."""
        agent.messages.append({"role": "assistant", "content": text})
        self.deliver(self.leader, self.wrap("completion", agent, self.leader, text,
                                            self.new_id("completion", agent)))

    def ask_master(self, asker: Agent, question: str) -> Ask:
        if "ask_master_without_id" in self.on:
            args: dict[str, Any] = {"question": question}
            question_id = self.new_id("ask", asker)  # allocated by the router
        else:
            question_id = self.new_id("ask", asker)  # chosen by the agent
            args = {"question": question, "question_id": question_id}
        call_id = self.call(asker, "ask_master", args, intent="Ask the Team Leader")
        self.deliver(self.leader, self.wrap("ask", asker, self.leader, question, question_id))
        return Ask(asker, self.leader, call_id, question_id)

    def ask_other(self, asker: Agent, target: Agent, question: str, report: str) -> Ask:
        question_id = self.new_id("ask", asker)
        if "ask_other_question" in self.on:
            args: dict[str, Any] = {"target_agent_id": target.agent_id, "question": question}
            if "ask_other_without_id" not in self.on:
                args["question_id"] = question_id
            mtype = "ask"  # TW-PROF-022: an ASK whatever the id's prefix
        else:
            args = {"target_agent_id": target.agent_id, "content": question,
                    "message_id": question_id}
            mtype = "message" if question_id.startswith("msg_") else "ask"  # TW-TYPE-010
        call_id = self.call(asker, "ask_other_agent", args, report,
                            intent=f"Ask {target.name}")
        self.deliver(self.leader, self.wrap("progress", asker, self.leader, report,
                                            self.new_id("progress", asker)))
        self.deliver(target, self.wrap(mtype, asker, target, question, question_id))
        return Ask(asker, target, call_id, question_id, mtype)

    def answer_other(self, ask: Ask, answer: str) -> None:
        key = "question_id" if "answer_other_question_id" in self.on else "message_id"
        call_id = self.call(ask.answerer, "answer_other_agent",
                            {"source_agent_id": ask.asker.agent_id, key: ask.question_id,
                             "answer": answer}, intent=f"Answer {ask.asker.name}")
        self.result(ask.answerer, call_id, {"success": True, "display_name": ask.asker.name,
                                            "message_id": ask.question_id})
        self.result(ask.asker, ask.call_id, self.answer_envelope(ask, ask.answerer, answer))

    def bundle(self) -> dict[str, Any]:
        return bundle_of(self.agents.values(), "astrion-audit")


def play(features: Iterable[str] = ()) -> dict[str, Any]:
    """One session: four sub-agents; progress, completions, both asks, messages, a pause.

    UI Operator_1 and API Designer_1 share agent_id 1, so only UI Operator_2 and _3 are
    targeted by agent_id alone; API Designer_1 is answered by its question's id, or with
    role_id in the strict form.
    """
    s = Session(features)
    s.create_custom_agent("api-designer", "API Designer", "Designs HTTP APIs.",
                          "You design small, consistent HTTP APIs and write them to api.md.")
    ui1 = s.create("ui-operator", "UI Operator", "uio", "Design the colour palette; write "
                   "design.md.")
    ui2 = s.create("ui-operator", "UI Operator", "uio", "Build the registration form.")
    ui3 = s.create("ui-operator", "UI Operator", "uio", "Build the shared button component.")
    api = s.create("api-designer", "API Designer", "apid", "Specify POST /api/users in api.md.")
    s.leader_says("Four sub-agents are at work; waiting for their reports.")

    s.work(ui1, "Reviewing the existing styles first.", "read_file", {"path": "styles.css"},
           "body { color: #333; }")
    question = s.ask_other(ui2, ui3, "Is the button component's API final? I need its props.",
                           "Asking UI Operator_3 whether the button props are final.")
    master = s.ask_master(api, "Should the API return 201 or 200 on registration?")
    s.work(ui3, "", "read_file", {"path": "button.tsx"}, "export function Button() {}")
    # the question reaches UI Operator_3 inline, before its next model call
    s.answer_other(question, "Yes: label, variant (primary|ghost) and onClick.")

    s.answer_master(master, "201 with the created user's id.")
    s.send_message(ui2, "Prefer the blue range for the primary button.")
    s.status([ui2, ui3], ["running", "running"])
    if "stop_sub_agent" in s.on:
        s.stop(ui3)  # UI Operator_3's turn stops after its answer; it waits idle
    s.send_message(ui3, "Add a dark variant to the button as well.")
    s.leader_says("Answered the API question and steered the UI Operators.")

    s.finish(ui1, "The palette is done: design.md, primary colours in the blue range.")
    s.finish(ui2, "The registration form is done and uses the shared button.")
    s.finish(api, "api.md specifies POST /api/users returning 201.")
    s.finish(ui3, "The button has primary, ghost and dark variants.")
    s.leader_says("All four reports are in; the registration page is complete.")
    return s.bundle()


# -- linting ------------------------------------------------------------------------------------

STRICT = LintOptions()
ASTRION = LintOptions(profile=Profile.ASTRION)


def findings(bundle: Any, options: LintOptions) -> list[tuple[str, str, str]]:
    report = lint_value(bundle, "bundle.json", options)
    return [(f.rule, f.severity.value, f.message) for f in report.findings]


def rules(bundle: Any, options: LintOptions) -> set[str]:
    return {rule for rule, _, _ in findings(bundle, options)}


def problems(bundle: Any, options: LintOptions) -> list[tuple[str, str, str]]:
    """Errors and warnings (info findings do not make a bundle unclean)."""
    return [f for f in findings(bundle, options) if f[1] in ("error", "warning")]


# -- real errors inside astrion bundles -------------------------------------------------------

Bundle = dict[str, Any]


def conversation(bundle: Bundle, agent: str) -> list[dict[str, Any]]:
    messages: list[dict[str, Any]] = bundle["agents"][agent]["messages"]
    return messages


def find(bundle: Bundle, agent: str, needle: str, role: str | None = None) -> dict[str, Any]:
    """The first message of ``agent`` whose content (or call) holds ``needle``."""
    for message in conversation(bundle, agent):
        text = json.dumps(message, ensure_ascii=False)
        holds = needle in (message.get("content") or "") or (
            bool(message.get("tool_calls")) and needle in text)
        if holds and (role is None or message["role"] == role):
            return message
    raise AssertionError(f"{needle!r} not in {agent}'s conversation")


def replace(bundle: Bundle, agent: str, needle: str, old: str, new: str) -> None:
    message = find(bundle, agent, needle)
    assert old in message["content"], (old, message["content"])
    message["content"] = message["content"].replace(old, new)


def arguments(bundle: Bundle, agent: str, tool: str) -> dict[str, Any]:
    message = find(bundle, agent, f'"name": "{tool}"', "assistant")
    args: dict[str, Any] = json.loads(message["tool_calls"][0]["function"]["arguments"])
    return args


def set_arguments(bundle: Bundle, agent: str, tool: str, args: dict[str, Any]) -> None:
    message = find(bundle, agent, f'"name": "{tool}"', "assistant")
    message["tool_calls"][0]["function"]["arguments"] = json.dumps(args, ensure_ascii=False)


def message_id(text: str) -> str:
    return text.split("\n")[1][len("id: "):]


def ask_ids(bundle: Bundle) -> tuple[str, str]:
    """Ids of UI Operator_2's question to UI Operator_3 and of API Designer_1's to the leader."""
    other = message_id(find(bundle, "UI Operator_3", "<UI Operator_2>")["content"])
    master = message_id(find(bundle, LEADER, "<API Designer_1>\n<Ask")["content"])
    return other, master


def change_call(agent: str, tool: str, **changes: Any) -> Any:
    """A mutation that sets (or, with None, removes) arguments of ``agent``'s first ``tool`` call."""
    def mutate(bundle: Bundle) -> None:
        args = arguments(bundle, agent, tool)
        for key, value in changes.items():
            if value is None:
                args.pop(key, None)
            else:
                args[key] = value
        set_arguments(bundle, agent, tool, args)
    return mutate


def peer_delivery_as(bundle: Bundle, mtype: str, text: str) -> None:
    """UI Operator_2's ask to UI Operator_3 delivered instead as ``mtype`` carrying ``text``."""
    other, _ = ask_ids(bundle)
    find(bundle, "UI Operator_3", "<UI Operator_2>")["content"] = envelope(
        "UI Operator_2", mtype, other, text, [("target", "UI Operator_3")], "UI Operator_3")


def task_from_sub_agent(bundle: Bundle) -> None:
    peer_delivery_as(bundle, "task", "Build the button now.")


def answer_to_wrong_question(bundle: Bundle) -> None:
    other, master = ask_ids(bundle)
    replace(bundle, "API Designer_1", "的回答", f'question_id="{master}"', f'question_id="{other}"')


def answer_naming_the_other_question_with_its_id(bundle: Bundle) -> None:
    other, master = ask_ids(bundle)
    answer = find(bundle, "API Designer_1", "的回答")
    answer["content"] = answer["content"].replace(master, other)


def answer_reusing_another_message_id(bundle: Bundle) -> None:
    _, master = ask_ids(bundle)
    completion = message_id(find(bundle, LEADER, "The palette is done")["content"])
    replace(bundle, "API Designer_1", "的回答", f"id: {master}", f"id: {completion}")


def change_id(old_of: str, new: Callable[[str, Bundle], str]) -> Any:
    def mutate(bundle: Bundle) -> None:
        old = message_id(find(bundle, LEADER, old_of)["content"])
        replace(bundle, LEADER, old_of, f"id: {old}", f"id: {new(old, bundle)}")
    return mutate


def text_change(agent: str, needle: str, *pairs: tuple[str, str]) -> Any:
    def mutate(bundle: Bundle) -> None:
        for old, new in pairs:
            replace(bundle, agent, needle, old, new)
    return mutate


def ask_delivered_as_message(bundle: Bundle) -> None:
    peer_delivery_as(bundle, "message", "Is the button component's API final? I need its props.")


def message_to_leader(bundle: Bundle) -> None:
    leader = conversation(bundle, LEADER)
    position = leader.index(find(bundle, LEADER, "Reviewing the existing"))
    leader.insert(position + 1, {"role": "user", "content": envelope(
        "UI Operator_1", "message", "msg_abcdef0123", "FYI: the palette is blue.",
        [("target", LEADER)], LEADER)})


def second_task(bundle: Bundle) -> None:
    conversation(bundle, "UI Operator_1").insert(2, {"role": "user", "content": envelope(
        LEADER, "task", "msg_abcdef0123", "Also design the icons.",
        [("target", "UI Operator_1")], "UI Operator_1")})


def stop_called_by_sub_agent(bundle: Bundle) -> None:
    ui1 = conversation(bundle, "UI Operator_1")
    ui1[3:3] = [
        {"role": "assistant", "content": "", "tool_calls": [{"id": "call_900", "type": "function",
         "function": {"name": "stop_sub_agent", "arguments": '{"agent_id": 2}'}}]},
        {"role": "tool", "tool_call_id": "call_900",
         "content": '{"success": true, "agent_id": 2, "status": "idle"}'}]


def reports_swapped(bundle: Bundle) -> None:
    leader = conversation(bundle, LEADER)
    first = leader.index(find(bundle, LEADER, "Reviewing the existing"))
    last = leader.index(find(bundle, LEADER, "The palette is done"))
    leader[first], leader[last] = leader[last], leader[first]


def upper(old: str, _: Bundle) -> str:
    return old.upper().replace("MSG_", "msg_")


def other_completion_id(_: str, bundle: Bundle) -> str:
    return message_id(find(bundle, LEADER, "The registration form is done")["content"])


# name -> (mutation of the all-differences bundle, rules of which at least one must be reported)
REAL_ERRORS: dict[str, tuple[Any, set[str]]] = {
    "task sent by a sub-agent": (task_from_sub_agent, {"TW201"}),
    "answer to the wrong question": (answer_to_wrong_question, {"TW504", "TW508"}),
    "answer naming and reusing the other question's id": (
        answer_naming_the_other_question_with_its_id, {"TW301", "TW504", "TW508"}),
    "answer reusing a third message's id": (answer_reusing_another_message_id, {"TW301"}),
    "progress with subtype completion_report": (text_change(
        LEADER, "Reviewing the existing", ('"progress_output"', '"completion_report"')), {"TW116"}),
    "ask to a sub-agent with subtype ask_master": (text_change(
        "UI Operator_3", "<UI Operator_2>", ('"ask_other"', '"ask_master"')), {"TW116"}),
    "task with subtype ask_master": (text_change(
        "UI Operator_1", "的任务发布", ('<Task target', '<Task subtype="ask_master" target')),
        {"TW116"}),
    "target differs from the header's receiver": (text_change(
        LEADER, "Reviewing the existing", ('target="Team Leader"', 'target="UI Operator_2"')),
        {"TW117"}),
    "header and target name another receiver": (text_change(
        "UI Operator_2", "Prefer the blue", ("向 UI Operator_2 的", "向 UI Operator_3 的"),
        ('target="UI Operator_2"', 'target="UI Operator_3"')), {"TW208"}),
    "header receiver is no display name": (text_change(
        LEADER, "Reviewing the existing", ("向 Team Leader 的", "向 Boss 的"),
        ('target="Team Leader"', 'target="Boss"')), {"TW112", "TW208"}),
    "id of nine hex digits": (change_id("The palette is done", lambda old, _: old[:-1]),
                              {"TW107"}),
    "id with upper-case hex digits": (change_id("The palette is done", upper), {"TW107"}),
    "one hex id for two reports": (change_id("The palette is done", other_completion_id),
                                   {"TW301"}),
    "ask delivered as a Message": (ask_delivered_as_message, {"TW501"}),
    "message to the Team Leader": (message_to_leader, {"TW205"}),
    "second task": (second_task, {"TW211"}),
    "completion labelled progress": (text_change(
        LEADER, "The palette is done", ("的任务结束汇报", "的任务进度输出"),
        ('"completion_report"', '"progress_output"')), {"TW513"}),
    "stop_sub_agent by a sub-agent": (stop_called_by_sub_agent, {"TW403"}),
    "stop_sub_agent without agent_id": (change_call(LEADER, "stop_sub_agent", agent_id=None),
                                        {"TW402"}),
    "stop_sub_agent of no sub-agent": (change_call(LEADER, "stop_sub_agent", agent_id=7),
                                       {"TW408"}),
    "agent_ids of strings": (change_call(LEADER, "get_sub_agent_status", agent_ids=["2", "3"]),
                             {"TW402"}),
    "answer_sub_agent_question without answer": (
        change_call(LEADER, "answer_sub_agent_question", answer=None), {"TW402"}),
    "answer_sub_agent_question to no question": (
        change_call(LEADER, "answer_sub_agent_question", question_id="msg_0123456789"),
        {"TW502"}),
    "answer_other_agent to no question": (
        change_call("UI Operator_3", "answer_other_agent", question_id="msg_0123456789"),
        {"TW502"}),
    "ask_other_agent without question": (
        change_call("UI Operator_2", "ask_other_agent", question=None), {"TW402"}),
    "create_custom_agent without body_prompt": (
        change_call(LEADER, "create_custom_agent", body_prompt=None), {"TW402"}),
    "create_sub_agent without task": (change_call(LEADER, "create_sub_agent", task=None),
                                      {"TW402"}),
    "intent that is a number (create_sub_agent)": (
        change_call(LEADER, "create_sub_agent", intent=5), {"TW402"}),
    "intent that is a number (ask_master)": (
        change_call("API Designer_1", "ask_master", intent=5), {"TW402"}),
    "reports of one sender swapped": (reports_swapped, {"TW507"}),
}

# The same kind of check, where the linter disagrees with the chapter.
# -- the tests ----------------------------------------------------------------------------------


def test_cited_requirements_exist() -> None:
    index = json.loads((SPEC_DIR / "requirements.json").read_text(encoding="utf-8"))
    known = {entry["id"] for entry in index["requirements"]}
    cited = set(FEATURES.values()) | {
        "TW-PROF-004", "TW-PROF-013", "TW-PROF-017", "TW-PROF-024", "TW-TOOL-006",
        "TW-TOOL-018", "TW-TOOL-023", "TW-TOOL-025", "TW-ROUTE-001", "TW-DEL-003",
        "TW-DEL-005"}
    assert cited <= known, sorted(cited - known)


def test_the_strict_session_is_clean_in_both_profiles() -> None:
    """TW-PROF-004: what is valid in strict stays valid in astrion."""
    bundle = play()
    assert problems(bundle, STRICT) == []
    assert problems(bundle, ASTRION) == []


@pytest.mark.parametrize("feature", sorted(FEATURES))
def test_each_difference_alone_is_clean_under_astrion(feature: str) -> None:
    assert problems(play([feature]), ASTRION) == []


def test_all_differences_together_are_clean_under_astrion() -> None:
    bundle = play(ALL_FEATURES)
    text = "\n".join(
        str(message.get("content")) + json.dumps(message.get("tool_calls"), ensure_ascii=False)
        for entry in bundle["agents"].values() for message in entry["messages"])
    for form in ("向 Team Leader 的", 'target="', 'subtype="ask_master"', 'subtype="ask_other"',
                 'subtype="progress_output"', 'subtype="completion_report"', ASTRION_COMPLETION,
                 "stop_sub_agent", "body_prompt", "agent_ids", '\\"intent\\"'):
        assert form in text, form
    assert problems(bundle, ASTRION) == []


# feature -> (rule, words of its message) that profile strict must report
STRICT_FLAGS: dict[str, tuple[str, str]] = {
    "receiver_header": ("TW114", "向"),
    "target_attribute": ("TW111", "'target'"),
    "subtype_attribute": ("TW111", "'subtype'"),
    "ask_question_id": ("TW110", "question_id"),
    "end_label": ("TW114", ASTRION_COMPLETION),
    "hex_ids": ("TW107", "msg_"),
    "answer_reuses_id": ("TW301", "msg_"),
    "create_without_agent_id": ("TW402", "create_sub_agent:"),
    "answer_by_question_id": ("TW402", "answer_sub_agent_question:"),
    "status_agent_ids": ("TW402", "get_sub_agent_status:"),
    "custom_body_prompt": ("TW402", "create_custom_agent:"),
    "ask_master_without_id": ("TW402", "ask_master:"),
    "ask_other_question": ("TW402", "ask_other_agent:"),
    "ask_other_without_id": ("TW402", "ask_other_agent:"),
    "answer_other_question_id": ("TW402", "answer_other_agent:"),
}


@pytest.mark.parametrize("feature", sorted(STRICT_FLAGS))
def test_strict_flags_each_difference(feature: str) -> None:
    rule, words = STRICT_FLAGS[feature]
    found = findings(play([feature]), STRICT)
    assert any(r == rule and words in message for r, _, message in found), found


def test_strict_flags_every_difference_of_the_whole_session() -> None:
    found = rules(play(ALL_FEATURES), STRICT)
    assert {rule for rule, _ in STRICT_FLAGS.values()} <= found


def test_a_strict_form_call_with_a_malformed_intent_stays_valid_under_astrion() -> None:
    """TW-PROF-004 before TW-PROF-014: send_message_to_sub_agent in strict's form is valid in
    strict whatever unknown arguments it carries (TW-TOOL-025), so astrion accepts it too."""
    bundle = play(ALL_FEATURES)
    change_call(LEADER, "send_message_to_sub_agent", intent=5)(bundle)
    assert "TW402" not in rules(bundle, ASTRION)


def test_strict_ignores_intent() -> None:
    """TW-TOOL-025: an argument that is not a parameter is ignored, so intent is no finding."""
    assert problems(play(["intent"]), STRICT) == []


def test_strict_leaves_stop_sub_agent_alone() -> None:
    """spec/12 table row 11: stop_sub_agent is no protocol tool of strict, and a host may define
    a tool of that name, so a strict validator does not flag the call (a strict router would
    have answered it with forbidden-tool, TW-TOOL-006)."""
    found = findings(play(["stop_sub_agent"]), STRICT)
    assert not any("stop_sub_agent" in message for _, _, message in found), found


def test_the_command_line_profile_switch(tmp_path: Path) -> None:
    path = tmp_path / "astrion.json"
    path.write_text(json.dumps(play(ALL_FEATURES), ensure_ascii=False), encoding="utf-8")
    astrion = CliRunner().invoke(main, ["lint", "--profile", "astrion", str(path)])
    assert astrion.exit_code == 0, astrion.output
    strict = CliRunner().invoke(main, ["lint", str(path)])
    assert strict.exit_code == 1, strict.output


# -- the rest of the chapter: late answers, statuses, numbering, redefined roles --------------


def test_unknown_subtype_values_are_ignored() -> None:
    """TW-PROF-008: subtypes other than the four named ones are ignored."""
    bundle = play(ALL_FEATURES)
    replace(bundle, "UI Operator_2", "Prefer the blue", "<Message target",
            '<Message subtype="leader_message" target')
    assert problems(bundle, ASTRION) == []


def test_an_ambiguous_asker_is_answered_by_question_id_or_role_id() -> None:
    """TW-PROF-018 with the ambiguous agent_id 1; the strict form with role_id (TW-PROF-004)."""
    for features in (ALL_FEATURES, ALL_FEATURES - {"answer_by_question_id"}):
        bundle = play(features)
        answer = arguments(bundle, LEADER, "answer_sub_agent_question")
        assert ("agent_id" in answer) == ("answer_by_question_id" not in features)
        assert problems(bundle, ASTRION) == []


def test_strict_form_ask_other_with_a_msg_id_keeps_its_meaning() -> None:
    """TW-PROF-004 with TW-TYPE-010: content + message_id 'msg_…' is a MESSAGE in astrion too."""
    features = ALL_FEATURES - {"ask_other_question", "ask_other_without_id"}
    bundle = play(features)
    assert "的消息" in find(bundle, "UI Operator_3", "<UI Operator_2>")["content"]
    assert problems(bundle, ASTRION) == []
    other, _ = ask_ids(bundle)
    find(bundle, "UI Operator_3", "<UI Operator_2>")["content"] = envelope(
        "UI Operator_2", "ask", other, "Is the button component's API final? I need its props.",
        [("target", "UI Operator_3"), ("subtype", "ask_other")], "UI Operator_3")
    assert "TW501" in rules(bundle, ASTRION)


def replaced_role(features: Iterable[str]) -> Bundle:
    """A custom role defined twice; the second definition serves the later sub-agent."""
    s = Session(features)
    s.create_custom_agent("api-designer", "API Designer", "Designs HTTP APIs.", "Use REST.")
    first = s.create("api-designer", "API Designer", "apid", "Specify POST /api/users.")
    s.create_custom_agent("api-designer", "API Designer", "Designs HTTP APIs.", "Use JSON:API.")
    second = s.create("api-designer", "API Designer", "apid", "Specify GET /api/users.")
    s.leader_says("Two API Designers are at work.")
    s.finish(first, "POST /api/users is specified.")
    s.finish(second, "GET /api/users is specified.")
    s.leader_says("Both endpoints are specified.")
    return s.bundle()


def test_astrion_accepts_a_custom_role_redefined() -> None:
    """TW-PROF-020: repeating a role id replaces the role for later sub-agents."""
    assert problems(replaced_role(ALL_FEATURES), ASTRION) == []


def test_strict_flags_a_custom_role_redefined() -> None:
    """TW-TOOL-018: in profile strict a repeated role id fails with role-exists."""
    found = findings(replaced_role(()), STRICT)
    assert any("create_custom_agent" in message for _, _, message in found), found


def numbered_after(explicit: tuple[int, ...], implicit: int) -> Bundle:
    """UI Operators created with the given agent_ids, then one without agent_id numbered
    ``implicit``."""
    s = Session(ALL_FEATURES)
    agents = [s.create("ui-operator", "UI Operator", "uio", f"Build page {n}.", agent_id=n)
              for n in explicit]
    s.instances["ui-operator"] = implicit - 1
    agents.append(s.create("ui-operator", "UI Operator", "uio", "Build the footer."))
    s.leader_says("The UI Operators are at work.")
    for agent in agents:
        s.finish(agent, f"{agent.name} is done.")
    s.leader_says("All pages are built.")
    return s.bundle()


def test_numbering_per_role_when_every_call_omits_agent_id() -> None:
    """TW-PROF-015: 1 for the role's first sub-agent, then one more each time."""
    assert problems(numbered_after((), 1), ASTRION) == []
    assert problems(numbered_after((1,), 2), ASTRION) == []
    assert problems(numbered_after((), 2), ASTRION) != []
    assert problems(numbered_after((1,), 3), ASTRION) != []


@pytest.mark.parametrize(("explicit", "implicit"), [((3,), 4), ((1, 5), 6), ((2,), 3)])
def test_numbering_continues_after_the_highest_agent_id(explicit: tuple[int, ...],
                                                        implicit: int) -> None:
    """TW-PROF-015: one more than the highest agent_id the role has had (4 after 3)."""
    assert problems(numbered_after(explicit, implicit), ASTRION) == []


def late_answer(features: Iterable[str], question_id: str | None = None) -> Bundle:
    """API Designer_1's ask_master times out; the leader's answer arrives later as a user
    message (TW-PROF-013) and starts a new turn."""
    s = Session(features)
    api = s.create("api-designer", "API Designer", "apid", "Specify POST /api/users in api.md.")
    s.leader_says("Waiting for the API Designer.")
    ask = s.ask_master(api, "Should registration return 201 or 200?")
    s.result(api, ask.call_id, {"success": False, "error": {
        "code": "timeout", "message": "No answer within 600 seconds."}})
    s.finish(api, "No answer yet; api.md assumes 201.")
    args: dict[str, Any] = {"question_id": ask.question_id, "answer": "201 is right."}
    if "answer_by_question_id" not in s.on:
        args = {"agent_id": 1, **args}
    call_id = s.call(s.leader, "answer_sub_agent_question", args, intent="Answer late")
    s.result(s.leader, call_id, {"success": True, "display_name": api.name,
                                 "question_id": ask.question_id})
    answer = s.answer_envelope(ask, s.leader, "201 is right.")
    if question_id is not None:
        answer = answer.replace(ask.question_id, question_id)
    s.deliver(api, answer)
    s.finish(api, "Confirmed: api.md keeps 201.")
    s.leader_says("The API is settled.")
    return s.bundle()


def test_strict_rejects_an_answer_as_user_message() -> None:
    assert "TW204" in rules(late_answer(()), STRICT)


@pytest.mark.parametrize("features", [ALL_FEATURES, frozenset()], ids=["astrion", "strict-ids"])
def test_astrion_accepts_an_answer_as_user_message(features: frozenset[str]) -> None:
    """TW-PROF-013: after the ask timed out, the Answer arrives as a user message."""
    assert problems(late_answer(features), ASTRION) == []


def test_astrion_flags_an_answer_as_user_message_naming_no_question() -> None:
    """TW-PROF-013: a user-message Answer must answer a question its sender was asked."""
    report = lint_value(late_answer(ALL_FEATURES, "msg_0123456789"), "bundle.json", ASTRION)
    answer_index = next(i for i, m in enumerate(conversation(
        late_answer(ALL_FEATURES, "msg_0123456789"), "API Designer_1"))
        if m["role"] == "user" and "msg_0123456789" in m["content"])
    assert any(f.agent == "API Designer_1" and f.index == answer_index for f in report.findings)


def failed_status(features: Iterable[str], status: str, state: str) -> Bundle:
    """UI Operator_1's turn ends with a run result; the leader then lists the sub-agents."""
    s = Session(features)
    ui = s.create("ui-operator", "UI Operator", "uio", "Design the colour palette.")
    s.leader_says("Waiting for the palette.")
    s.work(ui, "Reading the existing styles.", "read_file", {"path": "styles.css"}, "body {}")
    body = "The model call failed three times: upstream returned HTTP 503." \
        if state == "error" else "The turn exceeded timeout_seconds=600 and was stopped."
    result = f'<result agent="{ui.name}" state="{state}">\n<error>\n{body}\n</error>\n</result>'
    s.deliver(s.leader, s.wrap("completion", ui, s.leader, result, s.new_id("completion", ui)))
    call_id = s.call(s.leader, "list_active_sub_agents", {}, intent="Who is still working?")
    s.result(s.leader, call_id, {"success": True, "agents": [
        {"agent_id": 1, "role_id": ui.role_id, "display_name": ui.name, "status": status,
         "summary": ""}]})
    s.leader_says("UI Operator_1 stopped; I will retry later.")
    return s.bundle()


@pytest.mark.parametrize(("status", "state"), [("failed", "error"), ("timeout", "timeout")])
def test_astrion_accepts_failed_and_timeout_status(status: str, state: str) -> None:
    """TW-PROF-024."""
    assert problems(failed_status(ALL_FEATURES, status, state), ASTRION) == []


def test_strict_flags_a_failed_status() -> None:
    """TW-ROUTE-001: 'failed' is no routing state in profile strict."""
    found = findings(failed_status((), "failed", "error"), STRICT)
    assert any("failed" in message for _, _, message in found), found


def test_astrion_flags_an_unknown_status() -> None:
    """TW-PROF-024 adds only 'failed' and 'timeout' to the routing states."""
    found = findings(failed_status(ALL_FEATURES, "exploded", "error"), ASTRION)
    assert any("exploded" in message for _, _, message in found), found


# -- real errors stay errors under astrion ------------------------------------------------------


@pytest.fixture  # per test: see docs/contributing.md, "Fixtures and mutants"
def astrion_bundle() -> Bundle:
    bundle = play(ALL_FEATURES)
    assert problems(bundle, ASTRION) == []
    return bundle


def real_error_cases() -> list[Any]:
    return [pytest.param(mutate, expected, id=name)
            for name, (mutate, expected) in sorted(REAL_ERRORS.items())]


@pytest.mark.parametrize(("mutate", "expected"), real_error_cases())
def test_a_real_error_is_caught_under_astrion(mutate: Any, expected: set[str],
                                              astrion_bundle: Bundle) -> None:
    bundle = copy.deepcopy(astrion_bundle)
    mutate(bundle)
    found = {rule for rule, severity, _ in problems(bundle, ASTRION) if severity == "error"}
    assert found & expected, (expected, found)
