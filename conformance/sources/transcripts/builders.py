"""Build consistent session bundles for tests and benchmarks, the way a router would write them."""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from teamwire.envelope import (
    LEADER_NAME,
    LEADER_ROLE_ID,
    Envelope,
    IdAllocator,
    MessageType,
    render,
)


@dataclass
class Agent:
    name: str
    role_id: str
    agent_id: int | None
    messages: list[dict[str, Any]] = field(default_factory=list)


@dataclass
class PendingAsk:
    asker: Agent
    answerer: Agent
    call_id: str
    question_id: str


class SessionBuilder:
    """Appends messages to each agent's conversation in the order a router would."""

    def __init__(self, system_prompt: str = "You are the Team Leader.") -> None:
        self.ids = IdAllocator()
        self.leader = Agent(LEADER_NAME, LEADER_ROLE_ID, None,
                            [{"role": "system", "content": system_prompt},
                             {"role": "user", "content": "Build the registration page."}])
        self.agents: dict[str, Agent] = {LEADER_NAME: self.leader}
        self._calls = 0

    # -- plumbing -----------------------------------------------------------------------------

    def _call_id(self) -> str:
        self._calls += 1
        return f"call_{self._calls:04d}"

    def _envelope(self, mtype: MessageType, sender: Agent, content: str,
                  message_id: str | None = None, question_id: str | None = None) -> str:
        if message_id is None:
            message_id = self.ids.allocate(mtype, sender.name, sender.role_id)
        else:
            self.ids.observe(message_id)
        attrs = (("question_id", question_id),) if question_id is not None else ()
        return render(Envelope(sender=sender.name, label=mtype.label, id=message_id,
                               tag=mtype.tag, content=content, attributes=attrs))

    def call(self, agent: Agent, name: str, arguments: dict[str, Any], text: str = "") -> str:
        """Append an assistant message that calls ``name``; return the call id."""
        call_id = self._call_id()
        agent.messages.append({
            "role": "assistant", "content": text,
            "tool_calls": [{"id": call_id, "type": "function",
                            "function": {"name": name,
                                         "arguments": json.dumps(arguments, ensure_ascii=False)}}],
        })
        return call_id

    def result(self, agent: Agent, call_id: str, content: str | dict[str, Any]) -> None:
        """Append the tool result of ``call_id``."""
        if not isinstance(content, str):
            content = json.dumps(content, ensure_ascii=False)
        agent.messages.append({"role": "tool", "tool_call_id": call_id, "content": content})

    def deliver(self, receiver: Agent, text: str) -> None:
        receiver.messages.append({"role": "user", "content": text})

    # -- protocol actions ---------------------------------------------------------------------

    def create(self, role_id: str, role_name: str, agent_id: int, task: str,
               system_prompt: str = "You are a sub-agent.") -> Agent:
        """The leader creates a sub-agent, which receives its Task."""
        name = f"{role_name}_{agent_id}"
        agent = Agent(name, role_id, agent_id, [{"role": "system", "content": system_prompt}])
        self.agents[name] = agent
        call_id = self.call(self.leader, "create_sub_agent",
                            {"agent_id": agent_id, "role_id": role_id, "task": task})
        envelope = self._envelope(MessageType.TASK, self.leader, task)
        task_id = envelope.split("\n")[1][4:]
        self.result(self.leader, call_id, {"success": True, "agent_id": agent_id,
                                           "role_id": role_id, "display_name": name,
                                           "task_id": task_id})
        self.deliver(agent, envelope)
        return agent

    def say(self, agent: Agent, text: str) -> None:
        """Natural output of a sub-agent without tool calls: its turn ends, a completion."""
        agent.messages.append({"role": "assistant", "content": text})
        self.deliver(self.leader, self._envelope(MessageType.COMPLETION, agent, text))

    def work(self, agent: Agent, text: str, tool: str, arguments: dict[str, Any],
             output: str) -> None:
        """A sub-agent says something and calls an ordinary tool (a progress report)."""
        call_id = self.call(agent, tool, arguments, text)
        if text.strip():
            self.deliver(self.leader, self._envelope(MessageType.PROGRESS, agent, text))
        self.result(agent, call_id, output)

    def leader_work(self, text: str, tool: str, arguments: dict[str, Any], output: str) -> None:
        call_id = self.call(self.leader, tool, arguments, text)
        self.result(self.leader, call_id, output)

    def message(self, target: Agent, text: str) -> None:
        """The leader sends a Message to a sub-agent."""
        call_id = self.call(self.leader, "send_message_to_sub_agent",
                            {"agent_id": target.agent_id, "role_id": target.role_id,
                             "message": text})
        envelope = self._envelope(MessageType.MESSAGE, self.leader, text)
        self.result(self.leader, call_id, {"success": True, "display_name": target.name,
                                           "message_id": envelope.split("\n")[1][4:]})
        self.deliver(target, envelope)

    def ask_master(self, asker: Agent, question: str, text: str = "") -> PendingAsk:
        question_id = self.ids.allocate(MessageType.ASK, asker.name, asker.role_id)
        call_id = self.call(asker, "ask_master", {"question": question,
                                                  "question_id": question_id}, text)
        if text.strip():
            self.deliver(self.leader, self._envelope(MessageType.PROGRESS, asker, text))
        self.deliver(self.leader, self._envelope(MessageType.ASK, asker, question, question_id))
        return PendingAsk(asker, self.leader, call_id, question_id)

    def answer_master(self, ask: PendingAsk, answer: str) -> None:
        call_id = self.call(self.leader, "answer_sub_agent_question",
                            {"agent_id": ask.asker.agent_id, "role_id": ask.asker.role_id,
                             "question_id": ask.question_id, "answer": answer})
        self.result(self.leader, call_id, {"success": True, "display_name": ask.asker.name,
                                           "question_id": ask.question_id})
        self.result(ask.asker, ask.call_id, self._envelope(
            MessageType.ANSWER, self.leader, answer, question_id=ask.question_id))

    def ask_other(self, asker: Agent, target: Agent, question: str, text: str) -> PendingAsk:
        question_id = self.ids.allocate(MessageType.ASK, asker.name, asker.role_id)
        call_id = self.call(asker, "ask_other_agent",
                            {"target_agent_id": target.agent_id, "role_id": target.role_id,
                             "content": question, "message_id": question_id}, text)
        if text.strip():
            self.deliver(self.leader, self._envelope(MessageType.PROGRESS, asker, text))
        self.deliver(target, self._envelope(MessageType.ASK, asker, question, question_id))
        return PendingAsk(asker, target, call_id, question_id)

    def answer_other(self, ask: PendingAsk, answer: str) -> None:
        me = ask.answerer
        call_id = self.call(me, "answer_other_agent",
                            {"source_agent_id": ask.asker.agent_id, "role_id": ask.asker.role_id,
                             "message_id": ask.question_id, "answer": answer})
        self.result(me, call_id, {"success": True, "display_name": ask.asker.name,
                                  "message_id": ask.question_id})
        self.result(ask.asker, ask.call_id, self._envelope(
            MessageType.ANSWER, me, answer, question_id=ask.question_id))

    def ask_sub(self, target: Agent, question: str, answer: str) -> None:
        """The leader asks a sub-agent; its next natural output is the answer."""
        question_id = self.ids.allocate(MessageType.ASK, LEADER_NAME, LEADER_ROLE_ID)
        call_id = self.call(self.leader, "ask_sub_agent",
                            {"agent_id": target.agent_id, "role_id": target.role_id,
                             "question": question, "question_id": question_id})
        self.deliver(target, self._envelope(MessageType.ASK, self.leader, question, question_id))
        target.messages.append({"role": "assistant", "content": answer})
        self.result(self.leader, call_id, self._envelope(
            MessageType.ANSWER, target, answer, question_id=question_id))

    def terminate(self, target: Agent) -> None:
        call_id = self.call(self.leader, "terminate_sub_agent",
                            {"agent_id": target.agent_id, "role_id": target.role_id})
        self.result(self.leader, call_id, {"success": True, "agent_id": target.agent_id,
                                           "role_id": target.role_id,
                                           "display_name": target.name,
                                           "status": "terminated"})

    def bundle(self, session: str = "s-1") -> dict[str, Any]:
        return bundle_of(self.agents.values(), session)


def bundle_of(agents: Iterable[Any], session: str) -> dict[str, Any]:
    """The session bundle of ``agents`` (each with name, role_id, agent_id and messages)."""
    entries: dict[str, Any] = {}
    for agent in agents:
        entry: dict[str, Any] = {"role_id": agent.role_id}
        if agent.agent_id is not None:
            entry["agent_id"] = agent.agent_id
        entry["messages"] = agent.messages
        entries[agent.name] = entry
    return {"teamwire": "1.0", "session": session, "agents": entries}


def small_session() -> dict[str, Any]:
    """A session that uses every protocol path once and lints clean."""
    b = SessionBuilder()
    ui = b.create("ui-operator", "UI Operator", 1, "Design the colour palette; write design.md.")
    fse = b.create("full-stack-engineer", "Full-Stack Engineer", 1,
                   "Build the registration API.")
    b.work(ui, "Reviewing the existing styles first.", "read_file", {"path": "styles.css"},
           "body { color: #333; }")
    ask = b.ask_other(ui, fse, "Is the API final? I need the field list.",
                      "Asking Full-Stack Engineer_1 about the API fields.")
    b.work(fse, "", "read_file", {"path": "api.md"}, "POST /api/users")
    b.answer_other(ask, "Yes: POST /api/users with name, email, password.")
    question = b.ask_master(fse, "Which branching model does the project use?")
    b.answer_master(question, "Trunk-based development.")
    b.message(ui, "Prefer the blue range.")
    b.ask_sub(fse, "How long until the API is done?", "About an hour.")
    b.say(ui, "The palette is done: design.md, blue primary colours.")
    b.say(fse, "The API is implemented and tested.")
    b.terminate(ui)
    return b.bundle()
