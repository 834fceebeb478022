"""Sessions as astrion writes them, in the two versions profile astrion accepts.

``TODAY`` is astrion at commit 16aaea6b of JOJO6618/astrion: sub-agents named by display name,
instance numbers astrion's alone. ``EARLIER`` is commit 10654c4: sub-agents named by instance
number. Both write the same envelopes (header with the receiver for peer asks, ``msg_`` ids,
``target`` and ``subtype`` attributes, the completion label 任务结束汇报), give an Ask whose
asker chose no id the id ``ask_master_``/``ask_other_`` followed by ten hex digits, and show a
sub-agent the results of its tools as text, never as JSON or Answer envelopes.

The builder appends each message where astrion's code would put it; ``bundle()`` is the
session bundle ``teamwire import astrion`` makes of it, and ``data_dir()`` the files astrion
keeps (the Team Leader's tool results as the text its model saw, with the raw result in
``metadata.tool_payload``).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Any

from teamwire.envelope import LEADER_NAME, LEADER_ROLE_ID, Envelope, render

TODAY, EARLIER = "16aaea6b", "10654c4"
VERSIONS = (TODAY, EARLIER)
CONVERSATION = "conv_20261201_101500_ab12"
# The texts astrion shows a sub-agent for its protocol tools (TW-PROF-028).
ANSWER_FROM_LEADER = "Team Leader 的回答：\n"
ANSWER_FROM_PEER = "子智能体的回答：\n"
ANSWER_SENT = "回复已发送。"
RESTORE_NOTICE = "[系统通知|执行环境]\n当前工作区为 /workspace/landing，执行环境为 sandbox。"
MODE_NOTICE = "[系统通知|执行环境变更]\n执行环境已切换为 direct：命令现在直接在宿主机上运行。"


@dataclass
class Sub:
    """One sub-agent: its display name, role, the instance number its name ends with,
    astrion's own number (unique in the conversation) and its conversation."""

    name: str
    role_id: str
    number: int
    astrion_id: int
    task_id: str
    messages: list[dict[str, Any]] = field(default_factory=list)
    status: str = "running"


@dataclass
class Ask:
    """An ask waiting for its answer."""

    asker: Sub
    call_id: str
    question_id: str
    target: Sub | None = None


class AstrionSession:
    """Appends messages to each conversation the way one astrion version does."""

    def __init__(self, version: str = TODAY,
                 request: str = "Build a landing page whose palette matches the brand.") -> None:
        assert version in VERSIONS
        self.version = version
        self.leader: list[dict[str, Any]] = [{"role": "user", "content": request}]
        self.payloads: dict[str, Any] = {}
        """Leader tool call id → the raw result astrion keeps in metadata.tool_payload."""
        self.subs: dict[str, Sub] = {}
        self._serial = 0
        self._roles: dict[str, int] = {}

    # -- plumbing -------------------------------------------------------------------------------

    def _next(self) -> int:
        self._serial += 1
        return self._serial

    def hex_id(self, prefix: str) -> str:
        """An id as astrion draws it: ``prefix`` and ten hex digits (here from a counter, so
        that the sessions are the same every time)."""
        digest = hashlib.sha256(f"{prefix}{self._next()}".encode()).hexdigest()
        return f"{prefix}_{digest[:10]}"

    @staticmethod
    def envelope(sender: str, label: str, message_id: str, tag: str, content: str,
                 attrs: tuple[tuple[str, str], ...] = (), receiver: str | None = None) -> str:
        return render(Envelope(sender, label, message_id, tag, content, attrs, receiver))

    def call(self, messages: list[dict[str, Any]], name: str, arguments: dict[str, Any],
             text: str = "") -> str:
        call_id = f"call_{self._next():04d}"
        messages.append({"role": "assistant", "content": text, "tool_calls": [
            {"id": call_id, "type": "function",
             "function": {"name": name, "arguments": json.dumps(arguments, ensure_ascii=False)}}]})
        return call_id

    def leader_call(self, name: str, arguments: dict[str, Any], payload: dict[str, Any],
                    text: str = "") -> str:
        """The Team Leader calls a tool; astrion keeps its raw result."""
        call_id = self.call(self.leader, name, {**arguments, "intent": "团队协作"}, text)
        self.payloads[call_id] = payload
        self.leader.append({"role": "tool", "tool_call_id": call_id,
                            "content": json.dumps(payload, ensure_ascii=False)})
        return call_id

    @staticmethod
    def result(sub: Sub, call_id: str, text: str) -> None:
        sub.messages.append({"role": "tool", "tool_call_id": call_id, "content": text})

    def target(self, sub: Sub) -> dict[str, Any]:
        """How this version names a sub-agent to a targeting tool."""
        return {"display_name": sub.name} if self.version == TODAY else {"agent_id": sub.number}

    # -- the Team Leader ------------------------------------------------------------------------

    def create(self, role_id: str, role_name: str, task: str) -> Sub:
        """create_sub_agent without agent_id: astrion numbers the instance within its role."""
        number = self._roles[role_id] = self._roles.get(role_id, 0) + 1
        # Today astrion's own number is the conversation's smallest free one; earlier it was
        # the instance number.
        own = len(self.subs) + 1 if self.version == TODAY else number
        name = f"{role_name}_{number}"
        task_id = f"sub_{own}_{1764583000 + own}"
        sub = Sub(name, role_id, number, own, task_id,
                  [{"role": "system", "content": f"You are {name}, a member of the team."}])
        self.subs[name] = sub
        self.leader_call("create_sub_agent", {"role_id": role_id, "task": task}, {
            "success": True, "task_id": task_id, "agent_id": own, "status": "running",
            "message": f"{name} 已创建。", "run_in_background": False, "display_name": name})
        sub.messages.append({"role": "user", "content": self.envelope(
            LEADER_NAME, "任务发布", self.hex_id("msg"), "Task", task)})
        return sub

    def send(self, sub: Sub, text: str) -> None:
        """send_message_to_sub_agent: astrion appends the Message to the sub-agent at once,
        whatever it is doing."""
        self.leader_call("send_message_to_sub_agent", {**self.target(sub), "message": text},
                         {"success": True, "display_name": sub.name})
        sub.messages.append({"role": "user", "content": self.envelope(
            LEADER_NAME, "消息", self.hex_id("msg"), "Message", text)})

    def answer(self, ask: Ask, text: str) -> None:
        """answer_sub_agent_question: the answer becomes the result of the ask_master call."""
        self.leader_call("answer_sub_agent_question",
                         {"question_id": ask.question_id, "answer": text},
                         {"success": True, "question_id": ask.question_id})
        self.result(ask.asker, ask.call_id, ANSWER_FROM_LEADER + text)

    def status(self, *subs: Sub) -> None:
        if self.version == TODAY:
            arguments: dict[str, Any] = {"display_names": [s.name for s in subs]}
        else:
            arguments = {"agent_ids": [s.number for s in subs]}
        self.leader_call("get_sub_agent_status", arguments, {"success": True, "results": [
            {"agent_id": s.astrion_id, "found": True, "task_id": s.task_id, "status": s.status,
             "display_name": s.name} for s in subs]})

    def stop(self, sub: Sub) -> None:
        sub.status = "idle"
        self.leader_call("stop_sub_agent", self.target(sub), {
            "success": True, "task_id": sub.task_id, "agent_id": sub.astrion_id,
            "display_name": sub.name,
            "message": f"{sub.name} 已暂停，可用 send_message_to_sub_agent 重新激活。"})

    def terminate(self, sub: Sub) -> None:
        sub.status = "terminated"
        self.leader_call("terminate_sub_agent", self.target(sub), {
            "success": True, "task_id": sub.task_id, "agent_id": sub.astrion_id,
            "display_name": sub.name, "message": "子智能体已被强制关闭。"})

    def list_active(self) -> None:
        """list_active_sub_agents lists every sub-agent created, terminated ones too."""
        self.leader_call("list_active_sub_agents", {}, {"success": True, "agents": [
            {"agent_id": s.astrion_id, "role_id": s.role_id, "display_name": s.name,
             "task_id": s.task_id, "status": s.status} for s in self.subs.values()]})

    def custom_role(self, role_id: str, name: str, prompt: str) -> None:
        self.leader_call("create_custom_agent", {
            "role_id": role_id, "name": name, "description": f"{name} of the team.",
            "body_prompt": prompt}, {"success": True, "role_id": role_id, "name": name,
                                     "overwritten": False})

    def say_leader(self, text: str) -> None:
        self.leader.append({"role": "assistant", "content": text})

    # -- sub-agents -----------------------------------------------------------------------------

    def report(self, sub: Sub, text: str, final: bool) -> None:
        """astrion relays a sub-agent's text to the Team Leader as an Output."""
        label, subtype = ("任务结束汇报", "completion_report") if final \
            else ("任务进度输出", "progress_output")
        self.leader.append({"role": "user", "content": self.envelope(
            sub.name, label, self.hex_id("msg"), "Output", text, (("subtype", subtype),))})

    def say(self, sub: Sub, text: str, relayed: bool = True) -> None:
        """Natural output that ends the turn; ``relayed`` False when astrion swallows it."""
        sub.messages.append({"role": "assistant", "content": text})
        if relayed and text.strip():
            self.report(sub, text, final=True)

    def work(self, sub: Sub, text: str, tool: str, arguments: dict[str, Any], output: str,
             done: bool = True) -> str:
        """A sub-agent says something and calls an ordinary tool (``done``: the result comes
        at once)."""
        call_id = self.call(sub.messages, tool, arguments, text)
        if text.strip():
            self.report(sub, text, final=False)
        if done:
            self.result(sub, call_id, output)
        return call_id

    def ask_master(self, sub: Sub, question: str, text: str = "") -> Ask:
        """ask_master without question_id: astrion names the Ask ask_master_ + 10 hex."""
        call_id = self.call(sub.messages, "ask_master", {"question": question}, text)
        if text.strip():
            self.report(sub, text, final=False)
        question_id = self.hex_id("ask_master")
        self.leader.append({"role": "user", "content": self.envelope(
            sub.name, "提问", question_id, "Ask", question, (("subtype", "ask_master"),))})
        return Ask(sub, call_id, question_id)

    def ask_other(self, sub: Sub, target: Sub, question: str, text: str) -> Ask:
        """ask_other_agent, told to the Team Leader in the same message."""
        named = {"target_display_name": target.name} if self.version == TODAY \
            else {"target_agent_id": target.number}
        call_id = self.call(sub.messages, "ask_other_agent", {**named, "question": question},
                            text)
        self.report(sub, text, final=False)
        question_id = self.hex_id("ask_other")
        target.messages.append({"role": "user", "content": self.envelope(
            sub.name, "提问", question_id, "Ask", question,
            (("target", target.name), ("subtype", "ask_other")), receiver=target.name)})
        return Ask(sub, call_id, question_id, target)

    def answer_other(self, ask: Ask, text: str) -> None:
        """answer_other_agent: the answer becomes the result of the asker's call."""
        assert ask.target is not None
        arguments: dict[str, Any] = {"question_id": ask.question_id, "answer": text}
        if self.version == EARLIER:
            arguments = {"source_agent_id": ask.asker.number, **arguments}
        call_id = self.call(ask.target.messages, "answer_other_agent", arguments)
        self.result(ask.target, call_id, ANSWER_SENT)
        self.result(ask.asker, ask.call_id, ANSWER_FROM_PEER + text)

    def answer_in_output(self, ask: Ask, text: str) -> None:
        """The asked sub-agent answers in plain output, without answer_other_agent: astrion
        returns that text to the asker and never relays it to the Team Leader."""
        assert ask.target is not None
        self.say(ask.target, text, relayed=False)
        self.result(ask.asker, ask.call_id, ANSWER_FROM_PEER + text)

    def list_peers(self, sub: Sub) -> None:
        call_id = self.call(sub.messages, "list_active_sub_agents", {})
        lines = [f"当前会话活跃子智能体（共 {len(self.subs)} 个）：", ""]
        lines += [f"{s.name} [{s.status}]" for s in self.subs.values()]
        self.result(sub, call_id, "\n".join(lines))

    def notice(self, sub: Sub, text: str) -> None:
        """A notice astrion inserts into a sub-agent's conversation (restore, mode change)."""
        sub.messages.append({"role": "user", "content": text})

    # -- output ---------------------------------------------------------------------------------

    def bundle(self) -> dict[str, Any]:
        """The session bundle (as ``teamwire import astrion --plain`` writes it)."""
        agents: dict[str, Any] = {LEADER_NAME: {"role_id": LEADER_ROLE_ID,
                                                "messages": self.leader}}
        for sub in self.subs.values():
            agents[sub.name] = {"role_id": sub.role_id, "agent_id": sub.number,
                                "messages": sub.messages}
        return {"teamwire": "1.0", "session": f"default/{CONVERSATION}", "agents": agents}

    def data_dir(self) -> dict[str, Any]:
        """The files astrion keeps for this session, by path under its data directory."""
        leader: list[dict[str, Any]] = []
        for i, message in enumerate(self.leader):
            stored = dict(message, timestamp=f"2026-12-01T10:{15 + i // 60:02d}:{i % 60:02d}",
                          message_id=f"msg_{i:04d}")
            payload = self.payloads.get(message.get("tool_call_id", ""))
            if payload is not None:
                stored["content"] = _shown(payload)
                stored["metadata"] = {"tool_payload": payload}
            leader.append(stored)
        files: dict[str, Any] = {
            f"conversations/default/{CONVERSATION}.json": {
                "id": CONVERSATION, "title": "Landing page", "messages": leader,
                "metadata": {"multi_agent_mode": True}},
            "sub_agents.json": {"tasks": {s.task_id: {
                "task_id": s.task_id, "agent_id": s.astrion_id, "status": s.status,
                "conversation_id": CONVERSATION, "multi_agent_mode": True,
                "role_id": s.role_id, "display_name": s.name} for s in self.subs.values()}},
        }
        for sub in self.subs.values():
            files[f"sub_agent_tasks/{sub.task_id}/conversation.json"] = {
                "agent_id": sub.astrion_id, "task_id": sub.task_id, "status": sub.status,
                "messages": sub.messages}
        return files


def _shown(payload: dict[str, Any]) -> str:
    """The text astrion showed the Team Leader's model for a raw result (a short summary)."""
    for key in ("message", "error"):
        if isinstance(payload.get(key), str):
            return str(payload[key])
    return json.dumps(payload, ensure_ascii=False)
