"""A small router of the protocol written from the specification alone, without teamwire.

It is a second implementation for the certification tests: it shows that the scenarios can
be passed by code that shares nothing with the reference router, and, started with
``MINI_ROUTER_FAULT`` set, it makes one of the mistakes a router author would make, so that
the tests can check that certification fails with the right requirements:

- ``drop-final``: a message that reaches a sub-agent during its final reply is lost;
- ``reverse-batch``: messages waiting for an agent are appended newest first;
- ``no-inline``: a message to a running agent waits until its turn has ended;
- ``no-timeout``: an ask that is never answered waits for ever;
- ``list-terminated``: ``list_active_sub_agents`` lists terminated sub-agents too;
- ``no-round-limit``: asks between two agents are never limited;
- ``any-message``: any message that reaches a waiting agent ends its wait as if it were the
  answer;
- ``wrong-question``: the Team Leader's answer goes to the first sub-agent that waits on it,
  whichever question it answers;
- ``ignore-termination``: terminate_sub_agent says it terminated the sub-agent, which goes on;
- ``no-delivery``: send_message_to_sub_agent's result leaves out the optional ``delivery``;
- ``no-progress``: text beside a sub-agent's tool calls is dropped instead of reported;
- ``keep-call-ids``: tool calls keep the ids the model gave, empty, missing or repeated;
- ``keep-repeats``: arguments that name a member twice are read, the last value kept;
- ``any-integer``: integers beyond 2^53-1 are taken as any other;
- ``any-question``: an answer tool answers whatever its asker waits on, whichever id it names;
- ``take-any-knob``: an out-of-range ask timeout or round limit is taken as given, and an
  ``unanswered_asks`` other than ``wait`` and ``fail`` is read as ``wait``;
- ``run-unoffered``: a base tool it does not offer runs anyway, with a text result.
- ``per-agent-ids``: each agent counts its own ids, so two instances of one role give the
  same ``out_`` id.
- ``reuse-chosen-ids``: a counter gives an id an agent already chose for its ask.
- ``msg-as-ask``: a sub-agent's ask_other_agent is an Ask whatever its id, msg_ too.
- ``any-chosen-id``: an agent-chosen id is taken as given, malformed or used before.
- ``count-refused``: a refused send_message_to_sub_agent consumes a counter value.
- ``relay-leader-text``: the Team Leader's prose goes to every sub-agent as a Message.
- ``timeout-completes``: get_sub_agent_status gives a turn its timeout ended the state
  completed, as if it had ended naturally.
- ``answer-the-terminated``: an answer to a terminated asker fails as not-waiting, not as
  agent-terminated (TW-TOOL-037);
- ``no-summary``: list_active_sub_agents gives every summary empty, as 1.0 let it;
- ``blank-summary``: a summary is of the latest assistant text, blank or not;
- ``any-line-break``: a summary ends at any line break Python knows (U+2028 too), not at
  LF or CR alone;
- ``fail-queued``: with unanswered_asks fail, the end of a turn fails an ask to its agent
  that still waits in the queue, not only the ones the turn received (TW-ROUTE-030);
- ``answer-at-end``: the Team Leader's ask_sub_agent is answered by the final output of the
  sub-agent's turn, not by text beside tool calls before it (TW-ROUTE-014);
- ``created-idle``: create_sub_agent's result gives the new sub-agent the status ``idle``,
  as 1.0's TW-TOOL-007 read, though its Task has started its first turn (TW-TOOL-047).
- ``call-the-terminated``: a sub-agent that the reply creating it terminates still makes
  its first model call, with nothing but its system message (TW-ROUTE-020);
- ``terminate-again``: terminate_sub_agent on a terminated sub-agent succeeds again instead
  of failing with agent-terminated (TW-TOOL-010);
- ``join-parts``: an assistant message whose content is an array of parts is read as the text
  of its parts, as 1.0 let a router read it, not counted as a failed model call (TW-ROUTE-031).

It speaks the certification contract: OPENAI_BASE_URL, OPENAI_API_KEY, TEAMWIRE_REQUEST,
TEAMWIRE_ROLES (the role catalog), TEAMWIRE_ASK_TIMEOUT and TEAMWIRE_ROUND_LIMIT, which it
refuses (exit 2) when they are out of range; it exits 0 when every agent is idle and nothing
waits. Standard library only.

Started with ``--profile astrion`` it runs profile astrion as chapter 12 describes a router of
that profile (TW-PROF-032 to TW-PROF-037): astrion's tool set, instances numbered per role,
sub-agents named by display name, ask ids it draws when the asker gives none, and the results
of a sub-agent's tools as astrion's texts, stops that pause a sub-agent, and statuses by
display name or instance number. Started with ``--native-forms`` it runs the same
profile and writes envelopes in astrion's own forms, which the certifier reads by their
meaning (TW-CERT-027). These faults are mistakes of that mode:

- ``exact-names``: a display name in other letter case names no sub-agent;
- ``answer-envelope``: an ask's answer comes back as an Answer envelope, not as the text;
- ``stop-drops-queue``: stop_sub_agent empties the stopped sub-agent's queue;
- ``native-target`` (with ``--native-forms``): an Ask's ``target`` attribute differs from
  the receiver its header names;
- ``stop-leaves-ask``: stop_sub_agent leaves the cancelled ask without a result, as chapter
  12 used to say, where astrion gives it its cancellation text (TW-PROF-038);
- ``status-drops-unknown``: get_sub_agent_status leaves out a sub-agent it cannot find;
- ``stop-keeps-reply``: the reply of a model call in flight when stop_sub_agent stopped the
  sub-agent is appended to its conversation (its calls left without results) instead of
  discarded; the sub-agent's next turn waits for that call to end.

``--describe`` prints its capability declaration (the profile it was started with).
"""

from __future__ import annotations

import json
import os
import re
import secrets
import sys
import threading
import urllib.request
from pathlib import Path
from typing import Any, cast

FAULT = os.environ.get("MINI_ROUTER_FAULT", "")
ASTRION = "--native-forms" in sys.argv or "--profile=astrion" in sys.argv or (
    "--profile" in sys.argv[:-1] and sys.argv[sys.argv.index("--profile") + 1] == "astrion")
LEADER = "Team Leader"
NATIVE_FORMS = "--native-forms" in sys.argv
"""Profile astrion (``--native-forms`` implies it), writing astrion's own envelope forms:
the completion label 任务结束汇报 ("task ended report"), the subtype attribute, and a header
and target attribute naming a sub-agent receiver (来自 A 向 B: "from A to B")."""
CANCELLED_ASK = "等待回答被取消（软停止）"
"""The result astrion gives an ask that a stop cancelled: "the wait for an answer was cancelled
(soft stop)" (TW-PROF-038)."""
ROLES: dict[str, str] = {}  # role id -> role name, read from TEAMWIRE_ROLES
DESCRIPTIONS: dict[str, str] = {}  # role id -> description
LARGEST = 2 ** 53 - 1  # the integers every JSON reader holds exactly
ASK_LINE = re.compile(r"\A来自 (.+?)(?: 向 .+)? 的(?:提问|消息)\nid: (\S+)\n")
CHOSEN_ID = re.compile(r'[^\s<>"]+')  # an id an agent may choose (TW-ID-001)


def load_roles() -> None:
    """The role catalog the harness names, or the two preset roles."""
    path = os.environ.get("TEAMWIRE_ROLES")
    roles = json.loads(Path(path).read_text(encoding="utf-8")) if path else [
        {"role_id": "ui-operator", "name": "UI Operator",
         "description": "Designs and builds user interfaces."},
        {"role_id": "full-stack-engineer", "name": "Full-Stack Engineer",
         "description": "Builds APIs, services and their front-end wiring."}]
    for role in roles:
        ROLES[role["role_id"]] = role["name"]
        DESCRIPTIONS[role["role_id"]] = role["description"]


class ModelFailed(Exception):
    """A model call that failed: an error status, no answer, or no assistant message."""


class BadArguments(ValueError):
    """Arguments a router must refuse with invalid-arguments."""


def no_repeats(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """An object, refused when it names a member twice (names compared once decoded)."""
    members = dict(pairs)
    if len(members) != len(pairs):
        raise BadArguments("the arguments name a member twice")
    return members


def integers_in_range(value: Any) -> None:
    """Refuse an integer beyond what every JSON reader holds exactly."""
    if isinstance(value, dict):
        for item in value.values():
            integers_in_range(item)
    elif isinstance(value, list):
        for item in value:
            integers_in_range(item)
    elif type(value) is int and abs(value) > LARGEST and FAULT != "any-integer":
        raise BadArguments(f"{value} is beyond 2^53-1")


def read_arguments(text: str) -> dict[str, Any]:
    """A tool call's arguments: a JSON object, empty text read as {}."""
    try:
        value = json.loads(text or "{}", object_pairs_hook=no_repeats
                           if FAULT != "keep-repeats" else None)
    except RecursionError:
        raise BadArguments("the arguments nest too deep") from None
    except json.JSONDecodeError as exc:
        raise BadArguments(f"the arguments are not JSON: {exc}") from None
    if not isinstance(value, dict):
        raise BadArguments("the arguments are not a JSON object")
    integers_in_range(value)
    return value


def own_ids(calls: list[dict[str, Any]], history: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The calls with the ids a router gives them: an empty, missing or repeated id becomes
    base_n, base being the first 64 characters of the id (or "call") and n >= 2 the
    smallest number that makes it new in the conversation."""
    used = {c.get("id") for m in history for c in m.get("tool_calls") or ()}
    named = []
    for call in calls:
        call_id = call.get("id")
        if FAULT != "keep-call-ids" and (not call_id or call_id in used):
            base, n = (call_id or "")[:64] or "call", 2
            while f"{base}_{n}" in used:
                n += 1
            call_id = f"{base}_{n}"
        used.add(call_id)
        named.append({**call, "id": call_id})
    return named


def knob(name: str, whole: bool, default: float) -> float:
    """A setting from the environment; exit 2 on one the router must refuse."""
    text = os.environ.get(name)
    if not text:
        return default
    try:
        value = int(text) if whole else float(text)
    except ValueError:
        value = -1
    if FAULT != "take-any-knob" and not 0 < value < float("inf"):
        sys.stderr.write(f"error: {name} must be a positive {'integer' if whole else 'number'}, "
                         f"not {text!r}\n")
        sys.exit(2)
    return value


def abbreviation(name: str, role_id: str) -> str:
    """The ASCII capitals of the role name, lowercased, else the initials of the role id."""
    capitals = "".join(c for c in name if "A" <= c <= "Z").lower()
    return capitals or "".join(part[0] for part in re.split(r"[-_]", role_id) if part) or "a"
LEADER_TOOLS = ["create_sub_agent", "terminate_sub_agent", "send_message_to_sub_agent",
                "ask_sub_agent", "answer_sub_agent_question", "list_active_sub_agents",
                "get_sub_agent_status", "create_custom_agent", "list_agents"]
SUB_TOOLS = ["ask_master", "ask_other_agent", "answer_other_agent", "list_active_sub_agents"]
if ASTRION:  # astrion pauses with stop_sub_agent and has no ask_sub_agent (TW-PROF-017)
    LEADER_TOOLS = [*(t for t in LEADER_TOOLS if t != "ask_sub_agent"), "stop_sub_agent"]
ASKED_TEXT = {"ask_master": "Team Leader 的回答：\n", "ask_other_agent": "子智能体的回答：\n"}
"""How astrion starts the text an ask returns (TW-PROF-028)."""


def envelope(sender: str, label: str, message_id: str, tag: str, content: str,
             attributes: str = "", receiver: str | None = None) -> str:
    header = f"来自 {sender} 的{label}"
    if NATIVE_FORMS:  # astrion's own forms, which profile astrion reads (TW-CERT-027)
        subtype = {"任务完成汇报": "completion_report", "任务进度输出": "progress_output"}.get(label)
        if tag == "Ask":
            subtype = "ask_master" if receiver == LEADER else "ask_other"
        if label == "任务完成汇报":
            header = f"来自 {sender} 的任务结束汇报"
        if receiver is not None and receiver != LEADER:
            header = f"来自 {sender} 向 {receiver} 的{label}"
            # fault native-target: the target attribute names another sub-agent than the
            # header, an envelope profile astrion finds invalid (TW-PROF-007)
            named = receiver + "x" if FAULT == "native-target" else receiver
            attributes += f' target="{named}"'
        if subtype is not None:
            attributes += f' subtype="{subtype}"'
    return (f"{header}\nid: {message_id}\n\n<{sender}>\n<{tag}{attributes}>\n"
            f"{content}\n</{tag}>\n</{sender}>")


def shown(state: str) -> str:
    """A state as the router reports it: with ``--native-forms``, by astrion's names, which
    have no waiting or completed (TW-PROF-039)."""
    if NATIVE_FORMS:
        return {"waiting": "running", "completed": "idle"}.get(state, state)
    return state


def error(code: str, message: str) -> str:
    return json.dumps({"success": False, "error": {"code": code, "message": message}})


TEXTS = ("task", "message", "question", "content", "answer", "description", "prompt")


def depth(value: Any) -> int:
    """How deep objects and arrays nest, the outermost counted as level 1."""
    if isinstance(value, dict):
        return 1 + max((depth(v) for v in value.values()), default=0)
    if isinstance(value, list):
        return 1 + max((depth(v) for v in value), default=0)
    return 0


def tools(names: list[str]) -> list[dict[str, Any]]:
    return [{"type": "function", "function": {"name": name, "parameters": {"type": "object"}}}
            for name in names]


def summary_of(agent: Agent) -> str:
    """The latest assistant text that is not blank, up to its first LF or CR, at most 120 code
    points (TW-TOOL-015); str.strip() knows the white space chapter 00 lists."""
    if FAULT == "no-summary":
        return ""
    said = [m["content"] or "" for m in agent.messages if m["role"] == "assistant"
            and ((m.get("content") or "").strip() or FAULT == "blank-summary")]
    if not said:
        return ""
    if FAULT == "any-line-break":
        return (said[-1].splitlines() or [""])[0][:120]
    line = said[-1].split("\n", 1)[0].split("\r", 1)[0]
    return line[:120]


class Agent:
    def __init__(self, name: str, role_id: str, agent_id: int, abbreviation: str) -> None:
        self.name = name
        self.role_id = role_id
        self.agent_id = agent_id
        self.abbreviation = abbreviation
        self.messages: list[dict[str, Any]] = []
        self.pending: list[str] = []
        self.state = "idle"
        self.answer: str | None = None
        self.answered = threading.Event()
        self.received: dict[str, str] = {}  # question id -> asker, for Asks delivered
        self.asked_id: str | None = None  # the question id of the ask it waits on
        self.waiting_on: str | None = None
        self.asked_text: str | None = None  # the Ask it waits on, as its answerer receives it
        self.leader_asks: list[str] = []  # under answer-at-end: the Team Leader's questions
        # Messages of ask_other_agent (msg_ ids) waiting to be delivered, and those delivered,
        # which its next natural output answers: question id -> asker
        self.message_asks: dict[str, Agent] = {}
        self.heard: list[tuple[Agent, str]] = []
        self.ended: dict[str, str] | None = None  # how its latest turn ended, as a run result
        self.timeout = 600.0
        self.generation = 0  # turns started: a reply of an older turn is dropped
        self.stopped = -1  # the turn a stop_sub_agent ended: its open calls keep no result
        self.turning = threading.Lock()  # held for a whole turn under stop-keeps-reply


class Router:
    def __init__(self) -> None:
        self.url = os.environ["OPENAI_BASE_URL"].rstrip("/") + "/chat/completions"
        self.key = os.environ.get("OPENAI_API_KEY", "")
        self.lock = threading.RLock()
        self.done = threading.Condition(self.lock)
        self.agents: dict[str, Agent] = {LEADER: Agent(LEADER, "team-leader", 0, "tl")}
        self.tasks = 0
        self.busy = 0
        self.counted: set[tuple[str, int]] = set()
        """The turns ``busy`` counts, by agent and generation: a terminated agent's turn is
        no longer counted, even while its thread still waits on an abandoned model call."""
        # agents running the tool calls of a reply (not waiting in an ask): a turn those calls
        # start makes its first model call only once they are done (TW-ROUTE-033)
        self.executing = 0
        self.rounds: dict[tuple[str, str], int] = {}
        self.counters: dict[tuple[str, str], int] = {}  # (prefix, abbreviation) → last number
        self.used: set[str] = set()  # ids agents chose, which no counter may give (TW-ID-008)
        self.given: set[str] = set()  # ids the router allocated, which no agent may choose
        self.ask_timeout: float | None = knob("TEAMWIRE_ASK_TIMEOUT", False, 300)
        self.round_limit = int(knob("TEAMWIRE_ROUND_LIMIT", True, 8))
        unanswered = os.environ.get("TEAMWIRE_UNANSWERED_ASKS") or "wait"
        if unanswered not in ("wait", "fail") and FAULT != "take-any-knob":
            sys.stderr.write("error: TEAMWIRE_UNANSWERED_ASKS must be wait or fail, "
                             f"not {unanswered!r}\n")
            sys.exit(2)
        self.fail_unanswered = unanswered == "fail"
        if FAULT == "no-timeout":
            self.ask_timeout = None
        if FAULT == "no-round-limit":
            self.round_limit = 1 << 30

    # -- model calls ------------------------------------------------------------------------

    def complete(self, agent: Agent) -> dict[str, Any]:
        body = {"model": "any", "messages": agent.messages,
                "tools": tools(LEADER_TOOLS if agent.name == LEADER else SUB_TOOLS)}
        request = urllib.request.Request(self.url, json.dumps(body).encode(), {
            "Content-Type": "application/json", "Authorization": f"Bearer {self.key}"})
        try:
            with urllib.request.urlopen(request, timeout=60) as response:
                message = json.loads(response.read())["choices"][0]["message"]
        except Exception as exc:  # an error status, no answer, or no assistant message
            raise ModelFailed(f"the model call failed: {exc}") from None
        if not isinstance(message, dict):
            raise ModelFailed("the model call failed: the response holds no assistant message")
        content = message.get("content")
        if isinstance(content, list) and FAULT == "join-parts":
            message = {**message, "content": "".join(
                str(part.get("text", "")) for part in content if isinstance(part, dict))}
        elif content is not None and not isinstance(content, str):
            # content is a string or null (TW-ROUTE-031): an array of parts is a failed call
            raise ModelFailed("the model call failed: the assistant content is not text")
        return message

    def give_up(self, agent: Agent, reason: str) -> None:
        """One try, then the turn ends (TW-ROUTE-031): a sub-agent's with a run result of
        state error (TW-ROUTE-019), the Team Leader's with no message (TW-ROUTE-025)."""
        if agent.name == LEADER:
            self.end_turn(agent, "")
            return
        self.end_turn(agent, f'<result agent="{agent.name}" state="error">\n<error>\n'
                             f"{reason}\n</error>\n</result>")
        agent.ended = {"agent": agent.name, "state": "error", "error": reason}

    # -- turns ------------------------------------------------------------------------------

    def start_turn(self, agent: Agent) -> None:
        agent.state = "running"
        agent.generation += 1
        self.busy += 1
        self.counted.add((agent.name, agent.generation))
        if agent.name != LEADER:
            timer = threading.Timer(agent.timeout, self.expire, (agent, agent.generation))
            timer.daemon = True
            timer.start()
        threading.Thread(target=self.turn, args=(agent, agent.generation), daemon=True).start()

    def expire(self, agent: Agent, generation: int) -> None:
        """The turn timeout: the turn ends now with a run result, its late reply is dropped."""
        with self.lock:
            if agent.generation != generation or agent.state not in ("running", "waiting"):
                return
            agent.generation += 1
            if agent.waiting_on is not None and not agent.answered.is_set():
                # its pending ask fails with timeout (TW-ROUTE-018); the calls after it in
                # the reply get turn-ended from the turn's thread, which this wakes
                agent.answer = error("timeout", "the turn ended by its timeout during the ask")
                agent.answered.set()
            seconds = f"{agent.timeout:g}"
            result = (f'<result agent="{agent.name}" state="timeout">\n<error>\nstopped after '
                      f"{seconds} s\n</error>\n</result>")
            self.end_turn(agent, result)
            if FAULT != "timeout-completes":
                agent.ended = {"agent": agent.name, "state": "timeout",
                               "error": f"stopped after {seconds} s"}

    def drain(self, agent: Agent) -> None:
        batch = list(reversed(agent.pending)) if FAULT == "reverse-batch" else agent.pending
        agent.messages.extend({"role": "user", "content": text} for text in batch)
        for text in batch:
            found = ASK_LINE.match(text)
            if found:  # an Ask is received once it is in the conversation
                agent.received[found[2]] = found[1]
                asker = agent.message_asks.pop(found[2], None)
                if asker is not None:
                    agent.heard.append((asker, found[2]))
        agent.pending = []

    def turn(self, agent: Agent, generation: int) -> None:
        serial = FAULT == "stop-keeps-reply" and agent.name != LEADER
        if serial:  # one turn at a time: a stopped turn's late reply lands before the next
            agent.turning.acquire()
        try:
            with self.lock:
                while self.executing:
                    self.done.wait()
                # terminated by the rest of the reply that started the turn: no model call
                if FAULT != "call-the-terminated" and (agent.generation != generation
                                                       or agent.state == "terminated"):
                    return
            first = True
            while True:
                with self.lock:
                    if first or FAULT != "no-inline":
                        self.drain(agent)
                first = False
                try:
                    reply = self.complete(agent)
                except ModelFailed as exc:
                    with self.lock:
                        if agent.generation == generation and agent.state != "terminated":
                            self.give_up(agent, str(exc))
                    return
                with self.lock:
                    if FAULT == "stop-keeps-reply" and agent.stopped == generation:
                        agent.messages.append({"role": "assistant",
                                               "content": reply.get("content"),
                                               **({"tool_calls": reply["tool_calls"]}
                                                  if reply.get("tool_calls") else {})})
                    if agent.generation != generation or agent.state == "terminated":
                        # terminated, or stopped by its timeout or a stop_sub_agent: the
                        # reply is dropped (TW-PROF-037)
                        return
                    calls = own_ids(reply.get("tool_calls") or [], agent.messages)
                    agent.messages.append({"role": "assistant", "content": reply.get("content"),
                                           **({"tool_calls": calls} if calls else {})})
                    text = reply.get("content") or ""
                    answered = self.answer_heard(agent, text)
                    if agent.name == LEADER and text.strip() and FAULT == "relay-leader-text":
                        for other in list(self.agents.values()):
                            if other.name != LEADER and other.state != "terminated":
                                self.deliver(other, envelope(LEADER, "消息",
                                                             self.next_id("msg", agent),
                                                             "Message", text))
                    if calls:
                        # counted in the same hold of the lock as the progress report: a
                        # turn the report starts waits for these calls too (TW-ROUTE-033)
                        self.executing += 1
                    if calls and agent.name != LEADER and text.strip() and not answered \
                            and FAULT != "no-progress":
                        # text beside tool calls is progress, reported before they run
                        self.deliver(self.agents[LEADER], envelope(
                            agent.name, "任务进度输出", self.next_id("out", agent), "Output",
                            text))
                if not calls:
                    self.end_turn(agent, reply.get("content") or "", answered)
                    return
                try:
                    stop = self.run_calls(agent, generation, calls)
                finally:
                    with self.lock:
                        self.executing -= 1
                        self.done.notify_all()
                if stop:
                    return
                with self.lock:
                    if agent.generation != generation:
                        return  # ended by its timeout: every call has its result, no more calls
        finally:
            if serial:
                agent.turning.release()
            with self.lock:
                self.uncount(agent.name, generation)

    def uncount(self, name: str, generation: int) -> None:
        """The turn is over, or abandoned: the router may end without it."""
        if (name, generation) in self.counted:
            self.counted.discard((name, generation))
            self.busy -= 1
            self.done.notify_all()

    def run_calls(self, agent: Agent, generation: int, calls: list[dict[str, Any]]) -> bool:
        """Run the tool calls of one reply in order; whether the turn ends here (the agent
        was terminated or stopped)."""
        for call in calls:
            with self.lock:
                ended = agent.generation != generation
            if ended:  # the turn timeout came first: the call does nothing
                result = error("turn-ended", "the turn ended before this call ran")
            else:
                try:
                    result = self.execute(agent, call["function"]["name"],
                                          read_arguments(call["function"]["arguments"]))
                except BadArguments as exc:
                    result = error("invalid-arguments", str(exc))
            with self.lock:
                if agent.state == "terminated":
                    return True  # its conversation ends where it was terminated
                if agent.stopped == generation:
                    if result is CANCELLED_ASK and FAULT != "stop-leaves-ask":
                        # the ask the stop cancelled ends with astrion's text (TW-PROF-038)
                        agent.messages.append({"role": "tool", "tool_call_id": call["id"],
                                               "content": result})
                    return True  # stopped (TW-PROF-025): the open calls keep no result
                agent.messages.append({"role": "tool", "tool_call_id": call["id"],
                                       "content": result})
        return False

    def resolved(self, asker: Agent) -> None:
        """The asker's pending ask is resolved (its answer set): it is running again at once,
        as the decision table says, though its thread goes on only once the reply that
        resolved it has run its tool calls (TW-ROUTE-033)."""
        asker.waiting_on = None
        if asker.state == "waiting":
            asker.state = "running"
        asker.answered.set()

    def answer_heard(self, agent: Agent, text: str) -> bool:
        """Natural output answers the Team Leader's asks and the Messages of ask_other_agent
        the agent has heard whose askers still wait on them (the answer rule), each with an
        Answer of its own, whether or not the reply also calls tools; whether
        it answered any, so that it is no report too (TW-TYPE-018)."""
        if not text.strip() or not agent.heard:
            return False
        heard, agent.heard = agent.heard, []
        answered = False
        for asker, question_id in heard:
            if asker.waiting_on == agent.name and asker.asked_id == question_id \
                    and not asker.answered.is_set():
                asker.answer = envelope(agent.name, "回答", self.next_id("ans", agent), "Answer",
                                        text, f' question_id="{question_id}"')
                self.resolved(asker)
                answered = True
        return answered

    def end_turn(self, agent: Agent, text: str, answered: bool = False) -> None:
        with self.lock:
            if agent.state == "terminated":
                return
            agent.state = "completed" if agent.name != LEADER else "idle"
            agent.ended = {"agent": agent.name, "state": "completed", "output": text}
            if FAULT == "drop-final" and agent.name != LEADER:
                agent.pending = []
            leader = self.agents[LEADER]
            if agent.name != LEADER and agent.leader_asks and text.strip():
                # The natural output answers the Team Leader's ask (the answer rule).
                question_id = agent.leader_asks.pop(0)
                leader.answer = envelope(agent.name, "回答", self.next_id("ans", agent),
                                         "Answer", text, f' question_id="{question_id}"')
                self.resolved(leader)
            elif agent.name != LEADER and not answered:
                report = envelope(agent.name, "任务完成汇报", self.next_id("out", agent),
                                  "Output", text)
                self.deliver(leader, report)
            for other in self.agents.values():
                # with unanswered_asks fail, an ask this turn received and left unanswered
                # ends with it (TW-ROUTE-030); by default it waits on
                if self.fail_unanswered and other.waiting_on == agent.name and not other.answered.is_set() \
                        and (other.asked_text not in agent.pending or FAULT == "fail-queued"):
                    other.answer = error("unanswered", f"{agent.name} did not answer")
                    self.resolved(other)
            if agent.pending:
                if FAULT == "no-inline":
                    self.drain(agent)
                self.start_turn(agent)

    def next_id(self, prefix: str, agent: Agent) -> str:
        """The next id of a prefix for an agent's role: one counter per (prefix, abbreviation)
        pair, which instances of one role share (TW-ID-007)."""
        key = (prefix, agent.name if FAULT == "per-agent-ids" else agent.abbreviation)
        while True:
            self.counters[key] = self.counters.get(key, 0) + 1
            candidate = f"{prefix}_{agent.abbreviation}_{self.counters[key]:03d}"
            if candidate not in self.used or FAULT == "reuse-chosen-ids":
                self.given.add(candidate)
                return candidate

    def deliver(self, agent: Agent, text: str) -> str:
        """Route by the receiver's state: inline when running, a new turn when idle."""
        if FAULT == "any-message" and agent.state == "waiting":
            agent.answer = text
            self.resolved(agent)
            return "queued"
        agent.pending.append(text)
        if agent.state == "running":
            return "inline"
        if agent.state == "waiting":
            return "queued"
        self.start_turn(agent)
        return "new_turn"

    # -- tools ------------------------------------------------------------------------------

    def execute(self, agent: Agent, name: str, args: dict[str, Any]) -> str:
        if FAULT == "run-unoffered" and name in ("read_file", "run_command"):
            return f"{name} ran"
        if name not in (LEADER_TOOLS if agent.name == LEADER else SUB_TOOLS):
            return error("forbidden-tool", f"{name} is not a tool of {agent.name}")
        for key in ("agent_id", "target_agent_id", "source_agent_id", "timeout_seconds"):
            if key in args and (type(args[key]) is not int or args[key] < 1):
                return error("invalid-arguments", f"{key} must be an integer of at least 1")
        for key in TEXTS:
            if isinstance(args.get(key), str) and not args[key].strip():
                return error("invalid-arguments", f"{key} holds nothing but white space")
        if depth(args) > 64:
            return error("invalid-arguments", "the arguments nest more than 64 levels deep")
        if ASTRION:
            with self.lock:
                done, args = self.astrion_call(agent, name, args)
            if done is not None:
                return done
        if name in ("ask_master", "ask_other_agent", "ask_sub_agent"):
            id_name = "message_id" if name == "ask_other_agent" else "question_id"
            # any-chosen-id lets through a value that is no id, whatever its type
            question_id = cast(str, args.get(id_name))
            if (not isinstance(question_id, str) or not CHOSEN_ID.fullmatch(question_id)) \
                    and FAULT != "any-chosen-id":
                return error("invalid-arguments", f"{id_name} is no id (TW-ID-001)")
            with self.lock:
                if name == "ask_master":
                    target, text = self.agents[LEADER], args["question"]
                else:
                    found = self.resolve(agent, args[
                        "agent_id" if name == "ask_sub_agent" else "target_agent_id"],
                        args.get("role_id"))
                    if isinstance(found, str):
                        return found
                    target = found
                    text = args["question" if name == "ask_sub_agent" else "content"]
                # the order of TW-TOOL-037: the target, then the tool's own conditions
                if target.state == "terminated":
                    return error("agent-terminated", f"{target.name} is terminated")
                seen, link = {agent.name}, target
                while link.waiting_on is not None:
                    if link.waiting_on in seen or link.waiting_on == agent.name:
                        return error("wait-cycle", "the ask would wait in a cycle")
                    seen.add(link.name)
                    link = self.agents[link.waiting_on]
                if (question_id in self.used or question_id in self.given) \
                        and FAULT != "any-chosen-id":
                    return error("duplicate-id", f"{question_id} is used in this session")
                if name == "ask_other_agent":
                    pair = (agent.name, target.name)
                    if self.rounds.get(pair, 0) >= self.round_limit:
                        return error("round-limit", "too many asks between these two")
                    self.rounds[pair] = self.rounds.get(pair, 0) + 1
                if name == "ask_sub_agent":
                    if FAULT == "answer-at-end":
                        target.leader_asks.append(question_id)
                    else:  # the first natural output after delivery answers it (TW-ROUTE-014)
                        target.message_asks[question_id] = agent
                self.used.add(question_id)  # the counters skip it (TW-ID-008)
                agent.state = "waiting"
                agent.waiting_on = target.name
                agent.asked_id = question_id
                agent.answered.clear()
                # a sub-agent's ask whose id starts with msg_ is a Message (TW-TYPE-010),
                # which the target's next natural output answers
                if name == "ask_other_agent" and question_id.startswith("msg_") \
                        and FAULT != "msg-as-ask":
                    target.message_asks[question_id] = agent
                    agent.asked_text = envelope(agent.name, "消息", question_id, "Message", text)
                else:
                    agent.asked_text = envelope(agent.name, "提问", question_id, "Ask", text,
                                                receiver=target.name)
                turn = agent.generation
                self.deliver(target, agent.asked_text)
            with self.lock:  # waiting in the ask: the turns this reply started may begin
                self.executing -= 1
                self.done.notify_all()
            try:
                answered = agent.answered.wait(self.ask_timeout)
            finally:
                with self.lock:
                    # answered by text beside tool calls: those calls run first (TW-ROUTE-033)
                    while self.executing:
                        self.done.wait()
                    self.executing += 1
            with self.lock:
                if agent.stopped == turn:
                    return CANCELLED_ASK  # its turn was stopped (TW-PROF-038)
                agent.waiting_on = None
                agent.asked_id = None
                if agent.state == "waiting":
                    agent.state = "running"
                if not answered:
                    return error("timeout", f"{target.name} did not answer in time")
                return agent.answer or ""
        with self.lock:
            if name == "terminate_sub_agent":
                found = self.resolve(agent, args["agent_id"], args.get("role_id"))
                if isinstance(found, str):
                    return found
                if found.state == "terminated" and FAULT != "terminate-again":  # TW-TOOL-010
                    return error("agent-terminated", f"{found.name} is terminated")
                if FAULT == "ignore-termination":
                    return json.dumps({"success": True, "agent_id": found.agent_id,
                                       "role_id": found.role_id, "display_name": found.name,
                                       "status": "terminated"})
                found.state = "terminated"
                found.pending = []
                # its model call in progress is abandoned: not waited for (TW-ROUTE-020)
                self.uncount(found.name, found.generation)
                found.answered.set()  # an ask it waits on ends with it
                for other in self.agents.values():  # asks it will never answer fail now
                    if other.waiting_on == found.name:
                        other.answer = error("agent-terminated", f"{found.name} was terminated")
                        self.resolved(other)
                return json.dumps({"success": True, "agent_id": found.agent_id,
                                   "role_id": found.role_id, "display_name": found.name,
                                   "status": "terminated"})
            if name == "create_custom_agent":
                role_id, role_name = args["role_id"], args["name"]
                description = args.get("description", "")
                if not re.fullmatch(r"[a-z0-9][a-z0-9_-]{0,63}", role_id) \
                        or role_id == "team-leader":
                    return error("invalid-name", f"{role_id!r} is no role id")
                if role_id in ROLES or role_name in ROLES.values():
                    return error("role-exists", f"{role_id} exists")
                ROLES[role_id] = role_name
                DESCRIPTIONS[role_id] = description
                return json.dumps({"success": True, "role_id": role_id, "name": role_name})
            if name == "create_sub_agent":
                if args["role_id"] not in ROLES:
                    return error("unknown-role", f"no role {args['role_id']}")
                role_name = ROLES[args["role_id"]]
                if any(a.role_id == args["role_id"] and a.agent_id == args["agent_id"]
                       for a in self.agents.values()):
                    return error("duplicate-id", f"{role_name}_{args['agent_id']} exists")
                sub = Agent(f"{role_name}_{args['agent_id']}", args["role_id"], args["agent_id"],
                            abbreviation(role_name, args["role_id"]))
                sub.timeout = float(args.get("timeout_seconds", 600))
                self.agents[sub.name] = sub
                self.tasks += 1
                task_id = f"task_{self.tasks:03d}"
                self.given.add(task_id)
                sub.messages.append({"role": "system", "content": f"You are {sub.name}."})
                self.deliver(sub, envelope(LEADER, "任务发布", task_id, "Task", args["task"]))
                return json.dumps({"success": True, "agent_id": sub.agent_id,
                                   "role_id": sub.role_id, "display_name": sub.name,
                                   "status": "idle" if FAULT == "created-idle" else "running",
                                   "task_id": task_id})
            if name == "answer_other_agent":
                found = self.resolve(agent, args["source_agent_id"], args.get("role_id"))
                if isinstance(found, str):
                    return found
                question_id = args["message_id"]
                refused = self.unanswerable(agent, found, question_id)
                if refused is not None:
                    return refused
                found.answer = envelope(agent.name, "回答", self.next_id("ans", agent), "Answer",
                                        args["answer"], f' question_id="{question_id}"')
                if ASTRION and FAULT != "answer-envelope":
                    found.answer = ASKED_TEXT["ask_other_agent"] + args["answer"]
                self.resolved(found)
                if ASTRION:
                    return "回复已发送。"
                return json.dumps({"success": True, "display_name": found.name,
                                   "message_id": question_id})
            if name == "get_sub_agent_status":
                found = self.resolve(agent, args["agent_id"], args.get("role_id"))
                if isinstance(found, str):
                    return found
                status = {"success": True, "agent_id": found.agent_id,
                          "role_id": found.role_id, "display_name": found.name,
                          "status": shown(found.state)}
                result = self.run_result(found)
                if result is not None:
                    status["result"] = result
                return json.dumps(status)
            if name == "send_message_to_sub_agent":
                found = self.resolve(agent, args["agent_id"], args.get("role_id"))
                if isinstance(found, str):
                    if FAULT == "count-refused":
                        self.next_id("msg", agent)  # the refused call takes a number all the same
                    return found
                if found.state == "terminated":
                    return error("agent-terminated", f"{found.name} is terminated")
                target = found
                message_id = self.next_id("msg", agent)
                how = self.deliver(target, envelope(LEADER, "消息", message_id, "Message",
                                                    args["message"]))
                sent: dict[str, Any] = {"success": True, "display_name": target.name,
                                        "message_id": message_id, "delivery": how}
                if FAULT == "no-delivery":
                    del sent["delivery"]
                return json.dumps(sent)
            if name == "answer_sub_agent_question":
                found = self.resolve(agent, args["agent_id"], args.get("role_id"))
                if isinstance(found, str):
                    return found
                target = found
                refused = self.unanswerable(agent, target, args["question_id"])
                if refused is not None and FAULT not in ("wrong-question", "any-question"):
                    return refused
                if FAULT == "wrong-question":
                    target = next(a for a in self.agents.values() if a.waiting_on == LEADER)
                    target.waiting_on = None
                target.answer = envelope(LEADER, "回答", self.next_id("ans", agent), "Answer",
                                         args["answer"],
                                         f' question_id="{args["question_id"]}"')
                if ASTRION and FAULT != "answer-envelope":
                    target.answer = ASKED_TEXT["ask_master"] + args["answer"]
                self.resolved(target)
                return json.dumps({"success": True, "display_name": target.name,
                                   "question_id": args["question_id"]})
            if name == "list_agents":
                return json.dumps({"success": True, "roles": [
                    {"role_id": role_id, "name": role_name,
                     "description": DESCRIPTIONS.get(role_id, "")}
                    for role_id, role_name in ROLES.items()]})
            if name == "list_active_sub_agents":
                return json.dumps({"success": True, "agents": [
                    {"agent_id": a.agent_id, "role_id": a.role_id, "display_name": a.name,
                     "status": shown(a.state), "summary": summary_of(a)}
                    for a in self.agents.values() if a.name != LEADER
                    # astrion lists the terminated too (TW-PROF-024)
                    and (ASTRION or FAULT == "list-terminated" or a.state != "terminated")]})
        return error("forbidden-tool", f"{name} is not supported")

    def run_result(self, agent: Agent) -> dict[str, str] | None:
        """The run result of a sub-agent's latest turn in JSON form (TW-RES-013); None before
        its first turn."""
        if agent.state in ("running", "waiting"):
            return {"agent": agent.name, "state": "running",
                    "output": "its turn goes on; do not wait for it"}
        if agent.state == "terminated":
            return {"agent": agent.name, "state": "terminated",
                    "error": "terminated by the Team Leader"}
        return agent.ended

    def unanswerable(self, answerer: Agent, asker: Agent, question_id: str) -> str | None:
        """Why an answer to ``question_id`` of ``asker`` fails: the asker, its target, is
        terminated (first, by TW-TOOL-037), the answerer never received the question
        (unknown-question), or the asker waits on it no more (not-waiting); None if not."""
        if asker.state == "terminated" and FAULT != "answer-the-terminated":
            return error("agent-terminated", f"{asker.name} is terminated")
        if answerer.received.get(question_id) != asker.name:
            return error("unknown-question", f"no question {question_id} from {asker.name}")
        if asker.waiting_on != answerer.name or asker.asked_id != question_id \
                or asker.answered.is_set():
            return error("not-waiting", f"{asker.name} no longer waits on {question_id}")
        return None

    # -- profile astrion ----------------------------------------------------------------------

    def astrion_call(self, agent: Agent, name: str,
                     args: dict[str, Any]) -> tuple[str | None, dict[str, Any]]:
        """A call in astrion's form (TW-PROF-032 to TW-PROF-037): its result when astrion's
        tool differs from the strict one, else None and the arguments in the strict form."""
        args = dict(args)
        args.pop("intent", None)  # it tells the user what the call is for, nothing more
        if name == "create_sub_agent" and "agent_id" not in args:
            numbers = [a.agent_id for a in self.agents.values() if a.role_id == args.get("role_id")]
            args["agent_id"] = max(numbers, default=0) + 1
        elif name in ("stop_sub_agent", "terminate_sub_agent", "send_message_to_sub_agent") \
                and "display_name" in args:
            found = self.named(agent, args.pop("display_name"))
            if isinstance(found, str):
                return found, args
            if name == "stop_sub_agent":
                return self.stop(found), args
            args.update(agent_id=found.agent_id, role_id=found.role_id)
        elif name == "stop_sub_agent":  # astrion as it was: by agent_id (TW-PROF-035)
            if type(args.get("agent_id")) is not int:
                return error("invalid-arguments", "give display_name or agent_id"), args
            found = self.resolve(agent, args["agent_id"], args.get("role_id"))
            return (found if isinstance(found, str) else self.stop(found)), args
        elif name == "get_sub_agent_status" and ("display_names" in args or "agent_ids" in args):
            return self.statuses(agent, args), args
        elif name == "ask_master" and "question_id" not in args:
            args["question_id"] = f"ask_master_{secrets.token_hex(5)}"
        elif name == "ask_other_agent" and "target_display_name" in args:
            found = self.named(agent, args.pop("target_display_name"))
            if isinstance(found, str):
                return found, args
            args.update(target_agent_id=found.agent_id, role_id=found.role_id,
                        content=args.pop("question"),
                        message_id=args.pop("question_id", f"ask_other_{secrets.token_hex(5)}"))
        elif name == "answer_other_agent" and "message_id" not in args:
            asker = self.agents.get(agent.received.get(args.get("question_id", ""), ""))
            if asker is None:
                return error("unknown-question", f"no question {args.get('question_id')}"), args
            args.update(source_agent_id=asker.agent_id, role_id=asker.role_id,
                        message_id=args.pop("question_id"))
        elif name == "answer_sub_agent_question" and "agent_id" not in args:
            # the asker of the Ask the Team Leader received with that id, waiting or not:
            # an ask a stop cancelled fails with not-waiting (TW-PROF-025)
            asker = self.agents.get(agent.received.get(args.get("question_id", ""), ""))
            if asker is None:
                return error("unknown-question", f"no question {args.get('question_id')}"), args
            args.update(agent_id=asker.agent_id, role_id=asker.role_id)
        elif name == "list_active_sub_agents" and agent.name != LEADER:
            subs = [a for a in self.agents.values() if a.name != LEADER]
            if not subs:
                return "当前会话没有活跃子智能体。", args
            lines = [f"- {a.name} ({a.role_id}): {a.state}" for a in subs]
            return f"当前会话活跃子智能体（共 {len(subs)} 个）：\n" + "\n".join(lines), args
        return None, args

    def statuses(self, caller: Agent, args: dict[str, Any]) -> str:
        """get_sub_agent_status by display_names or, as astrion was, by agent_ids
        (TW-PROF-019, TW-PROF-036): one entry per item, in the order given."""
        key = "display_names" if "display_names" in args else "agent_ids"
        items = args[key]
        kind = str if key == "display_names" else int
        if not isinstance(items, list) or not items \
                or any(type(item) is not kind for item in items):
            return error("invalid-arguments", f"{key} must list at least one sub-agent")
        results: list[dict[str, Any]] = []
        for item in items:
            found = self.named(caller, item) if kind is str \
                else self.resolve(caller, item, None)
            if isinstance(found, str):
                if '"ambiguous-agent-id"' in found or '"invalid-arguments"' in found:
                    return found
                if FAULT != "status-drops-unknown":
                    results.append({"found": False, key[:-1]: item})
                continue
            results.append({"found": True, "agent_id": found.agent_id,
                            "role_id": found.role_id, "display_name": found.name,
                            "status": shown(found.state)})
        return json.dumps({"success": True, "results": results})

    def named(self, caller: Agent, name: Any) -> Agent | str:
        """The sub-agent of exactly this display name, else the first whose name differs
        only in letter case (TW-PROF-026); or the error result."""
        subs = [a for a in self.agents.values() if a.name != LEADER]
        found = next((a for a in subs if a.name == name), None)
        if found is None and isinstance(name, str) and FAULT != "exact-names":
            found = next((a for a in subs if a.name.lower() == name.lower()), None)
        if found is None:
            return error("unknown-agent", f"no sub-agent is called {name!r}")
        if found is caller:
            return error("invalid-arguments", "a call may not target its caller")
        return found

    def stop(self, found: Agent) -> str:
        """stop_sub_agent (TW-PROF-016, TW-PROF-035): the turn ends, its ask is cancelled,
        the queue stays, and the sub-agent waits idle for a message."""
        if found.state == "terminated":
            return error("agent-terminated", f"{found.name} is terminated")
        if found.state in ("running", "waiting"):
            # its open calls keep no result (TW-PROF-025), its late reply is dropped
            found.stopped = found.generation
            found.generation += 1
            found.waiting_on = found.asked_id = None  # an answer now fails with not-waiting
            found.answer = None
            found.answered.set()  # wakes the turn's thread if it waits on its ask
        found.state = "idle"
        if FAULT == "stop-drops-queue":
            found.pending = []
        return json.dumps({"success": True, "agent_id": found.agent_id,
                           "display_name": found.name, "status": shown(found.state)})

    def resolve(self, caller: Agent, agent_id: int, role_id: str | None) -> Agent | str:
        """The sub-agent an agent_id (and role_id) names, or the error result."""
        if caller.name != LEADER and (role_id, agent_id) == (caller.role_id, caller.agent_id):
            return error("invalid-arguments", "a call may not target its caller")
        found = [a for a in self.agents.values() if a.name not in (LEADER, caller.name)
                 and a.agent_id == agent_id and role_id in (None, a.role_id)]
        if not found:
            return error("unknown-agent", f"no sub-agent {agent_id}")
        if len(found) > 1:
            return json.dumps({"success": False, "error": {
                "code": "ambiguous-agent-id", "message": "give role_id",
                "candidates": [{"agent_id": a.agent_id, "role_id": a.role_id,
                                "display_name": a.name} for a in found]}})
        return found[0]

    def run(self, request: str) -> None:
        leader = self.agents[LEADER]
        leader.messages.append({"role": "system", "content": "You are the Team Leader."})
        with self.lock:
            leader.pending.append(request)
            self.start_turn(leader)
            while self.busy:
                self.done.wait()


if __name__ == "__main__":
    if "--describe" in sys.argv:
        print(json.dumps({"teamwire": "1.0", "router": "mini_router.py",
                          "profile": "astrion" if ASTRION else "strict",
                          "features": ["send-delivery"],
                          "knobs": {"ask_timeout": "TEAMWIRE_ASK_TIMEOUT",
                                    "round_limit": "TEAMWIRE_ROUND_LIMIT",
                                    "unanswered_asks": "TEAMWIRE_UNANSWERED_ASKS"}}))
        sys.exit(0)
    load_roles()
    Router().run(os.environ["TEAMWIRE_REQUEST"])
    sys.exit(0)
