"""Session bundles built from the rules of the specification alone, with a record of every message.

Nothing here comes from the implementation: envelopes are the template of spec/01-envelope.md,
ids the prefix table and counters of spec/04-ids.md (TW-ID-003, TW-ID-005, TW-ID-007), and each
protocol action puts its messages where spec/03-message-types.md and spec/07-routing.md say:

- the Team Leader's create_sub_agent call gives the sub-agent its Task as the first protocol
  message of its conversation (TW-TYPE-014), and send_message_to_sub_agent a Message, both
  user messages in the target's conversation (TW-TYPE-011);
- an ask (ask_master, ask_other_agent, ask_sub_agent) arrives as an Ask in the answerer's
  conversation, with the id the asker chose (TW-ID-013); its answer comes back as the tool
  result of the ask call, an Answer envelope whose question_id is that id (TW-TYPE-013);
  answer_sub_agent_question and answer_other_agent give the answer, and for ask_sub_agent the
  first natural output of the target after the Ask is the answer (Routing, answer matching),
  which is then no report (TW-TYPE-018);
- a sub-agent's natural output reaches the Team Leader as progress when the assistant message
  also calls tools and as completion when it does not (TW-TYPE-016).

Every action is complete when it returns (a call and its result, a delivery), so the bundle is
consistent after any sequence of actions, and ``SpecSession.sent`` records, for each message,
the assistant message that sent it and the user message that delivered it (the very dicts of
the bundle, so their positions can be found after an edit).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

TL = "Team Leader"
LEADER_ROLE = "team-leader"

# Type → (label, tag, id prefix): the type table of spec/03 and the prefix table of spec/04.
TYPES = {
    "task": ("任务发布", "Task", "task"),
    "progress": ("任务进度输出", "Output", "out"),
    "completion": ("任务完成汇报", "Output", "out"),
    "ask": ("提问", "Ask", "ask"),
    "message": ("消息", "Message", "msg"),
    "answer": ("回答", "Answer", "ans"),
}


def envelope(sender: str, mtype: str, message_id: str, content: str,
             question_id: str | None = None) -> str:
    """The canonical text of an envelope (TW-ENV-001 to TW-ENV-009)."""
    label, tag, _prefix = TYPES[mtype]
    attributes = "" if question_id is None else f' question_id="{question_id}"'
    return "\n".join([f"来自 {sender} 的{label}", f"id: {message_id}", "", f"<{sender}>",
                      f"<{tag}{attributes}>", content, f"</{tag}>", f"</{sender}>"])


def abbreviation(role_name: str, role_id: str) -> str:
    """The abbreviation of a role (spec/04, Abbreviation; TW-ID-006)."""
    capitals = "".join(ch for ch in role_name if "A" <= ch <= "Z").lower()
    if capitals:
        return capitals
    segments = [s for s in role_id.replace("_", "-").split("-") if s]
    return "".join(s[0] for s in segments) or "a"


@dataclass(eq=False)
class Agent:
    name: str
    role_id: str
    agent_id: int | None
    abbr: str
    messages: list[dict[str, Any]] = field(default_factory=list)
    terminated: bool = False


@dataclass(eq=False)
class Sent:
    """One protocol message: what sent it, where it was delivered."""

    kind: str
    """task, message, ask_master, ask_other, ask_sub (sent by a tool call) or output."""
    sender: str
    receiver: str
    id: str
    content: str
    source: dict[str, Any]
    """The assistant message that sent it: the call, or (output) the natural output."""
    delivery: dict[str, Any]
    """The user message that delivered it."""
    order: int
    """Position among everything sent in the session."""
    answered_by: dict[str, Any] | None = None
    """For an ask: the answerer's message that answered it (its answer call, or for
    ask_sub_agent its natural output)."""


class SpecSession:
    """Protocol actions of one session, appended to each agent's conversation in the order the
    router would append them."""

    def __init__(self) -> None:
        self.leader = Agent(TL, LEADER_ROLE, None, "tl",
                            [{"role": "system", "content": "You are the Team Leader."},
                             {"role": "user", "content": "Build the registration page."}])
        self.agents: dict[str, Agent] = {TL: self.leader}
        self.sent: list[Sent] = []
        self.terminations: list[tuple[str, dict[str, Any]]] = []
        """(sub-agent, the leader's terminate_sub_agent call) in order."""
        self._counters: dict[tuple[str, str], int] = {}
        self._calls = 0
        self._texts = 0

    # -- plumbing -------------------------------------------------------------------------------

    def allocate(self, mtype: str, sender: Agent) -> str:
        """The next id of ``mtype`` from ``sender`` (TW-ID-003, TW-ID-005, TW-ID-007)."""
        prefix = TYPES[mtype][2]
        key = (prefix, "" if prefix == "task" else sender.abbr)
        self._counters[key] = self._counters.get(key, 0) + 1
        number = f"{self._counters[key]:03d}"
        return f"task_{number}" if prefix == "task" else f"{prefix}_{sender.abbr}_{number}"

    def text(self, what: str) -> str:
        """A text no other message of the session has."""
        self._texts += 1
        return f"{what} (#{self._texts})"

    def _call(self, agent: Agent, tool: str, arguments: dict[str, Any],
              text: str = "") -> tuple[dict[str, Any], str]:
        self._calls += 1
        call_id = f"call_{self._calls:04d}"
        message = {"role": "assistant", "content": text, "tool_calls": [
            {"id": call_id, "type": "function",
             "function": {"name": tool, "arguments": json.dumps(arguments, ensure_ascii=False)}}]}
        agent.messages.append(message)
        return message, call_id

    @staticmethod
    def _result(agent: Agent, call_id: str, content: Any) -> None:
        text = content if isinstance(content, str) else json.dumps(content, ensure_ascii=False)
        agent.messages.append({"role": "tool", "tool_call_id": call_id, "content": text})

    def _deliver(self, kind: str, sender: Agent, receiver: Agent, mtype: str, content: str,
                 source: dict[str, Any], message_id: str | None = None) -> Sent:
        message_id = message_id or self.allocate(mtype, sender)
        delivery = {"role": "user", "content": envelope(sender.name, mtype, message_id, content)}
        receiver.messages.append(delivery)
        sent = Sent(kind, sender.name, receiver.name, message_id, content, source, delivery,
                    len(self.sent))
        self.sent.append(sent)
        return sent

    def _target(self, agent: Agent) -> dict[str, Any]:
        return {"agent_id": agent.agent_id, "role_id": agent.role_id}

    # -- the Team Leader's actions --------------------------------------------------------------

    def create(self, role_id: str, role_name: str, agent_id: int) -> Agent:
        """create_sub_agent: the new sub-agent's Task is its first protocol message."""
        name = f"{role_name}_{agent_id}"
        agent = Agent(name, role_id, agent_id, abbreviation(role_name, role_id),
                      [{"role": "system", "content": f"You are {role_name}."}])
        self.agents[name] = agent
        task = self.text(f"Task of {name}")
        call, call_id = self._call(self.leader, "create_sub_agent",
                                   {"agent_id": agent_id, "role_id": role_id, "task": task})
        task_id = self.allocate("task", self.leader)
        self._result(self.leader, call_id, {"success": True, "agent_id": agent_id,
                                            "role_id": role_id, "display_name": name,
                                            "task_id": task_id})
        self._deliver("task", self.leader, agent, "task", task, call, task_id)
        return agent

    def message(self, target: Agent) -> Sent:
        """send_message_to_sub_agent: a Message in the target's conversation."""
        text = self.text(f"Note for {target.name}")
        call, call_id = self._call(self.leader, "send_message_to_sub_agent",
                                   {**self._target(target), "message": text})
        message_id = self.allocate("message", self.leader)
        self._result(self.leader, call_id, {"success": True, "display_name": target.name,
                                            "message_id": message_id})
        return self._deliver("message", self.leader, target, "message", text, call, message_id)

    def ask_sub(self, target: Agent) -> Sent:
        """ask_sub_agent: the target's first natural output after the Ask is the answer."""
        question, answer = self.text("How far along are you?"), self.text("Nearly done")
        question_id = self.allocate("ask", self.leader)
        call, call_id = self._call(self.leader, "ask_sub_agent",
                                   {**self._target(target), "question": question,
                                    "question_id": question_id})
        sent = self._deliver("ask_sub", self.leader, target, "ask", question, call, question_id)
        said = {"role": "assistant", "content": answer}
        target.messages.append(said)
        sent.answered_by = said
        self._result(self.leader, call_id, envelope(target.name, "answer",
                                                    self.allocate("answer", target), answer,
                                                    question_id))
        return sent

    def terminate(self, target: Agent) -> None:
        call, call_id = self._call(self.leader, "terminate_sub_agent", self._target(target))
        self._result(self.leader, call_id, {"success": True, **self._target(target),
                                            "display_name": target.name,
                                            "status": "terminated"})
        target.terminated = True
        self.terminations.append((target.name, call))

    # -- a sub-agent's actions ------------------------------------------------------------------

    def work(self, agent: Agent, text: str | None = None) -> Sent:
        """Text and an ordinary tool call: a progress report."""
        text = text or self.text(f"{agent.name} reads the notes")
        said, call_id = self._call(agent, "read_file", {"path": "notes.md"}, text)
        sent = self._deliver("output", agent, self.leader, "progress", text, said)
        self._result(agent, call_id, "The notes.")
        return sent

    def say(self, agent: Agent) -> Sent:
        """Text without tool calls: the turn ends with a completion."""
        text = self.text(f"{agent.name} is done")
        said = {"role": "assistant", "content": text}
        agent.messages.append(said)
        return self._deliver("output", agent, self.leader, "completion", text, said)

    def ask_master(self, asker: Agent) -> Sent:
        """ask_master, answered by the leader's answer_sub_agent_question."""
        question, answer = self.text("Which colour?"), self.text("Blue")
        question_id = self.allocate("ask", asker)
        call, call_id = self._call(asker, "ask_master", {"question": question,
                                                         "question_id": question_id})
        sent = self._deliver("ask_master", asker, self.leader, "ask", question, call, question_id)
        reply, reply_id = self._call(self.leader, "answer_sub_agent_question",
                                     {**self._target(asker), "question_id": question_id,
                                      "answer": answer})
        sent.answered_by = reply
        self._result(self.leader, reply_id, {"success": True, "display_name": asker.name,
                                             "question_id": question_id})
        self._result(asker, call_id, envelope(TL, "answer", self.allocate("answer", self.leader),
                                              answer, question_id))
        return sent

    def ask_other(self, asker: Agent, target: Agent) -> tuple[Sent, Sent]:
        """ask_other_agent with a word for the leader (a progress report, TW-TYPE-019),
        answered by the target's answer_other_agent."""
        note = self.text(f"{asker.name} asks {target.name} about the API")
        question, answer = self.text("Is the API final?"), self.text("Yes")
        question_id = self.allocate("ask", asker)
        call, call_id = self._call(asker, "ask_other_agent",
                                   {"target_agent_id": target.agent_id,
                                    "role_id": target.role_id, "content": question,
                                    "message_id": question_id}, note)
        report = self._deliver("output", asker, self.leader, "progress", note, call)
        sent = self._deliver("ask_other", asker, target, "ask", question, call, question_id)
        reply, reply_id = self._call(target, "answer_other_agent",
                                     {"source_agent_id": asker.agent_id,
                                      "role_id": asker.role_id, "message_id": question_id,
                                      "answer": answer})
        sent.answered_by = reply
        self._result(target, reply_id, {"success": True, "display_name": asker.name,
                                        "message_id": question_id})
        self._result(asker, call_id, envelope(target.name, "answer",
                                              self.allocate("answer", target), answer,
                                              question_id))
        return report, sent

    # -- the bundle -----------------------------------------------------------------------------

    def bundle(self) -> dict[str, Any]:
        """The session bundle (spec/schemas/bundle.schema.json); conversations are the live lists."""
        agents: dict[str, Any] = {}
        for agent in self.agents.values():
            entry: dict[str, Any] = {"role_id": agent.role_id}
            if agent.agent_id is not None:
                entry["agent_id"] = agent.agent_id
            entry["messages"] = agent.messages
            agents[agent.name] = entry
        return {"teamwire": "1.0", "session": "spec-session", "agents": agents}

    def index(self, agent: str, message: dict[str, Any] | None) -> int:
        """Where ``message`` (the very dict) now is in ``agent``'s conversation."""
        for i, m in enumerate(self.agents[agent].messages):
            if m is message:
                return i
        raise LookupError(f"not in the conversation of {agent}")

    def channel(self, sender: str, receiver: str) -> list[Sent]:
        """The messages ``sender`` sent ``receiver`` by tool calls, in the order sent."""
        return [s for s in self.sent if s.kind != "output" and s.sender == sender
                and s.receiver == receiver]

    def outputs(self, sender: str) -> list[Sent]:
        return [s for s in self.sent if s.kind == "output" and s.sender == sender]
