"""A scenario of profile strict, as a harness runs it against a router of profile astrion
(TW-CERT-028, TW-CERT-034, TW-CERT-035).

The scenarios of levels core and durable are written in the tools of profile ``strict``. A
router of profile astrion offers the tools of astrion today (commit ``16aaea6b``,
``schemas/tools/astrion.json``, TW-PROF-032), which name a sub-agent by display name and take
other argument names. Before such a scenario runs against that router, every scripted tool
call is rewritten in astrion's form, and every expected result of a call whose result astrion
gives in another form is rewritten as astrion gives it; the envelopes and statuses the
router appends are read by the profile as for the astrion scenarios (TW-CERT-027,
TW-PROF-039). A scenario that cannot be put in astrion's forms raises ``NotApplicable`` with
the reason, and the harness reports it skipped (TW-CERT-035).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from teamwire import schemas
from teamwire.conformance.capabilities import PRESET_ROLES
from teamwire.conformance.matching import FURTHER_MEMBERS, IF_PRESENT
from teamwire.conformance.scenario import Reply, Scenario
from teamwire.envelope import LEADER_NAME, ParseError, is_envelope, parse

VERSION = "16aaea6b"
"""The version of astrion whose tool arguments the harness sends (chapter 12)."""

RESULT_TEXTS: dict[str, tuple[str, ...]] = dict(schemas.tool_names("astrion").result_texts)
"""The texts astrion's tool results start with (TW-PROF-028, ``schemas/tools/astrion.json``):
an expected result is rewritten into the first of its tool's; a sub-agent's list starts with
the first of ``list_active_sub_agents``, never the empty list's, since the caller is in it."""

CREATE_KEPT = frozenset({"role_id", "task", "thinking_mode"})
"""The arguments of strict create_sub_agent that astrion's takes (agent_id aside)."""

CUSTOM_KEPT = frozenset({"role_id", "name", "description", "thinking_mode"})
"""The arguments of strict create_custom_agent that astrion's takes (prompt aside)."""

NAME_CODES = frozenset({"invalid-arguments", "ambiguous-agent-id"})
"""Error codes an expected result of a rewritten call cannot keep: they judge the strict
arguments, which the router of profile astrion is not sent."""


class NotApplicable(ValueError):
    """A scenario that cannot run against a router of profile astrion, with the reason."""


@dataclass(frozen=True)
class AstrionScenario(Scenario):
    """A scenario of profile strict rewritten in astrion's forms: its profile is astrion."""

    written_for: str = "strict"
    notes: Mapping[tuple[str, int], str] = field(default_factory=dict)
    """(agent, call) of an expectation → what of it is not compared (TW-CERT-034)."""


def _preset_roles() -> dict[str, str]:
    data = json.loads(PRESET_ROLES.read_text(encoding="utf-8"))
    return {str(role["role_id"]): str(role["name"]) for role in data}


def _error_code(message: Mapping[str, Any] | None) -> str | None:
    """The code of an expected error result, or None when it is no error result."""
    if message is None:
        return None
    value = _json(message.get("content"))
    if isinstance(value, dict) and value.get("success") is False:
        error = value.get("error")
        return str(error.get("code")) if isinstance(error, dict) else ""
    return None


def _json(text: Any) -> Any:
    if not isinstance(text, str):
        return None
    try:
        return json.loads(text)
    except ValueError:
        return None


class _Translation:
    """The state of one scenario's rewriting: roles, sub-agents, expected results."""

    def __init__(self, scenario: Scenario) -> None:
        self.scenario = scenario
        self.roles = _preset_roles()
        self.numbers: dict[str, int] = {}  # role id → the highest number given
        self.names: list[tuple[str, int, str]] = []  # (role id, agent id, display name)
        self.expected: dict[str, tuple[int, int, dict[str, Any]]] = {}
        for e_index, expectation in enumerate(scenario.expectations):
            for m_index, message in enumerate(expectation.appended):
                call_id = message.get("tool_call_id")
                if message.get("role") == "tool" and isinstance(call_id, str):
                    self.expected.setdefault(call_id, (e_index, m_index, message))
        self.results: dict[tuple[int, int], dict[str, Any]] = {}
        self.notes: dict[tuple[str, int], list[str]] = {}
        self.terminated = False

    def fail(self, agent: str, call_id: str | None, name: str, why: str) -> NotApplicable:
        return NotApplicable(
            f"the scenario is written for profile strict and cannot be put in the tools of "
            f"astrion {VERSION} (TW-CERT-035): {agent}'s {name} call {call_id or '(no id)'} "
            f"{why}; {', '.join(self.scenario.requirements)} not checked here")

    def name_of(self, agent: str, call_id: str | None, tool: str, args: dict[str, Any],
                key: str) -> str:
        """The display name a strict call's ``key`` (and ``role_id``) names."""
        number = args.get(key)
        role = args.get("role_id")
        if type(number) is not int:
            raise self.fail(agent, call_id, tool, f"gives {key} {number!r}, not a number that "
                            "names a sub-agent")
        if isinstance(role, str):
            if role not in self.roles:
                raise self.fail(agent, call_id, tool, f"names the role {role!r}, unknown")
            return f"{self.roles[role]}_{number}"
        found = [name for _, agent_id, name in self.names if agent_id == number]
        if not found:
            # a number no sub-agent has names nobody: so does the name the first role would
            # give it, which no sub-agent of the script has
            return f"{next(iter(self.roles.values()))}_{number}"
        if len(found) != 1:
            raise self.fail(agent, call_id, tool, f"gives {key} {number} without role_id, "
                            f"which {len(found)} sub-agents of the script have")
        return found[0]

    def expected_result(self, call_id: str | None) -> dict[str, Any] | None:
        if call_id is None or call_id not in self.expected:
            return None
        e_index, m_index, message = self.expected[call_id]
        found: dict[str, Any] = self.results.get((e_index, m_index), message)
        return found

    def set_result(self, call_id: str, message: dict[str, Any], note: str = "") -> None:
        e_index, m_index, _ = self.expected[call_id]
        self.results[(e_index, m_index)] = message
        if note:
            expectation = self.scenario.expectations[e_index]
            self.notes.setdefault((expectation.agent, expectation.call), []).append(note)

    def call(self, agent: str, call_id: str | None, tool: str,
             arguments: str) -> tuple[str, str]:
        """The tool call in astrion's form: (name, arguments as JSON text)."""
        args = _json(arguments)
        if not isinstance(args, dict):
            return tool, arguments  # not an object: invalid in either profile
        expected = self.expected_result(call_id)
        code = _error_code(expected)
        new = self._arguments(agent, call_id, tool, args, code)
        if new is None:
            return tool, arguments
        if code in NAME_CODES:
            raise self.fail(agent, call_id, tool, f"expects the error {code}, which judges "
                            "arguments astrion's tool does not take")
        return tool, json.dumps(new, ensure_ascii=False)

    def _arguments(self, agent: str, call_id: str | None, tool: str, args: dict[str, Any],
                   code: str | None) -> dict[str, Any] | None:
        """The arguments in astrion's form; None when they stay as they are."""
        leader = agent == LEADER_NAME
        if leader and tool == "ask_sub_agent":
            raise self.fail(agent, call_id, tool, "asks a sub-agent, which astrion's Team "
                            "Leader has no tool for (TW-PROF-017)")
        if leader and tool == "create_sub_agent":
            extra = sorted(set(args) - CREATE_KEPT - {"agent_id"})
            if extra:
                raise self.fail(agent, call_id, tool, f"gives {', '.join(extra)}, which "
                                "astrion's create_sub_agent does not take")
            role = args.get("role_id")
            number = self.numbers.get(role, 0) + 1 if isinstance(role, str) else None
            if "agent_id" in args and args["agent_id"] != number:
                raise self.fail(agent, call_id, tool, f"chooses agent_id {args['agent_id']!r}"
                                ", where astrion numbers each role's instances itself "
                                f"(TW-PROF-015) and would give {number}")
            if code is None and isinstance(role, str) and role in self.roles:
                assert number is not None
                self.numbers[role] = number
                self.names.append((role, number, f"{self.roles[role]}_{number}"))
            return {k: v for k, v in args.items() if k != "agent_id"}
        if leader and tool == "create_custom_agent":
            extra = sorted(set(args) - CUSTOM_KEPT - {"prompt"})
            if extra:
                raise self.fail(agent, call_id, tool, f"gives {', '.join(extra)}, which "
                                "astrion's create_custom_agent does not take")
            role, name = args.get("role_id"), args.get("name")
            if code is None and isinstance(role, str) and isinstance(name, str) \
                    and role not in self.roles:
                self.roles[role] = name
            custom = {k: v for k, v in args.items() if k != "prompt"}
            if "prompt" in args:
                custom["body_prompt"] = args["prompt"]
            return custom
        if leader and tool == "list_active_sub_agents" and self.terminated \
                and self.expected_result(call_id) is not None:
            raise self.fail(agent, call_id, tool, "expects the list after a sub-agent was "
                            "terminated, where astrion lists every sub-agent the session "
                            "created, the terminated too (TW-PROF-024, TW-PROF-034)")
        if leader and tool == "terminate_sub_agent":
            self.terminated = True
        if leader and tool in ("terminate_sub_agent", "send_message_to_sub_agent",
                               "get_sub_agent_status"):
            name = self.name_of(agent, call_id, tool, args, "agent_id")
            rest = {k: v for k, v in args.items() if k not in ("agent_id", "role_id")}
            if tool != "get_sub_agent_status":
                return {"display_name": name, **rest}
            self._status_result(call_id, name)
            return {"display_names": [name], **rest}
        if leader and tool == "answer_sub_agent_question":
            return {k: v for k, v in args.items() if k not in ("agent_id", "role_id")}
        if not leader and tool == "ask_master":
            self._answer_text(agent, call_id, tool)
            return None
        if not leader and tool == "ask_other_agent":
            message_id = args.get("message_id")
            if isinstance(message_id, str) and message_id.startswith("msg_"):
                raise self.fail(agent, call_id, tool, f"sends the Message {message_id}, where "
                                "astrion makes every ask_other_agent call an ASK "
                                "(TW-PROF-022)")
            name = self.name_of(agent, call_id, tool, args, "target_agent_id")
            out: dict[str, Any] = {"target_display_name": name}
            if "content" in args:
                out["question"] = args["content"]
            if "message_id" in args:
                out["question_id"] = args["message_id"]
            out.update((k, v) for k, v in args.items()
                       if k not in ("target_agent_id", "role_id", "content", "message_id"))
            self._answer_text(agent, call_id, tool)
            return out
        if not leader and tool == "answer_other_agent":
            answer = {k: v for k, v in args.items()
                      if k not in ("source_agent_id", "role_id", "message_id")}
            if "message_id" in args:
                answer = {"question_id": args["message_id"], **answer}
            self._success_text(call_id, tool)
            return answer
        if not leader and tool == "list_active_sub_agents":
            self._list_text(call_id)
        return None

    def _answer_text(self, agent: str, call_id: str | None, tool: str) -> None:
        """An expected Answer envelope as astrion's text: the success text, then its
        content (TW-PROF-028); its sender, id and question_id are not in the text."""
        expected = self.expected_result(call_id)
        content = expected.get("content") if expected is not None else None
        if call_id is None or not isinstance(content, str) or not is_envelope(content):
            return
        try:
            envelope = parse(content)
        except ParseError:
            return
        if envelope.tag != "Answer":
            return
        assert expected is not None
        self.set_result(call_id, {**expected, "content": RESULT_TEXTS[tool][0] + envelope.content},
                        f"{tool} result {call_id}: astrion's text carries the answer, not the "
                        "Answer's sender, id and question_id")

    def _success_text(self, call_id: str | None, tool: str) -> None:
        expected = self.expected_result(call_id)
        value = _json(expected.get("content")) if expected is not None else None
        if call_id is None or expected is None or not isinstance(value, dict) \
                or value.get("success") is not True:
            return
        left = sorted(k for k in value if k not in ("success", FURTHER_MEMBERS))
        self.set_result(call_id, {**expected, "content": RESULT_TEXTS[tool][0]},
                        f"{tool} result {call_id}: astrion's text says only that the call "
                        f"succeeded" + (f", not {', '.join(left)}" if left else ""))

    def _list_text(self, call_id: str | None) -> None:
        expected = self.expected_result(call_id)
        value = _json(expected.get("content")) if expected is not None else None
        if call_id is None or expected is None or not isinstance(value, dict) \
                or value.get("success") is not True:
            return
        # astrion lists every sub-agent the session created, the caller among them
        # (TW-PROF-034): the list is never empty when a sub-agent calls the tool
        listed = RESULT_TEXTS["list_active_sub_agents"][0]
        self.set_result(call_id, {**expected, "content": listed + "<any text>"},
                        f"list_active_sub_agents result {call_id}: astrion's list is text, "
                        "of which only the start is compared")

    def _status_result(self, call_id: str | None, name: str) -> None:
        """An expected get_sub_agent_status result as astrion's one-item ``results``
        (TW-PROF-036)."""
        expected = self.expected_result(call_id)
        value = _json(expected.get("content")) if expected is not None else None
        if call_id is None or expected is None or not isinstance(value, dict):
            return
        code = _error_code(expected)
        if value.get("success") is True:
            item: dict[str, Any] = {"found": True}
            for key, member in value.items():
                if key in ("success", FURTHER_MEMBERS):
                    continue
                # TW-PROF-036 names agent_id, display_name and status; the rest may be there
                item[key] = member if key in ("agent_id", "display_name", "status") \
                    else member if isinstance(member, dict) and IF_PRESENT in member \
                    else {IF_PRESENT: member}
            item[FURTHER_MEMBERS] = True
            result = {"success": True, "results": [item], FURTHER_MEMBERS: True}
            note = ""
        elif code == "unknown-agent":
            result = {"success": True, "results": [
                {"found": False, "display_name": name, FURTHER_MEMBERS: True}],
                FURTHER_MEMBERS: True}
            note = (f"get_sub_agent_status result {call_id}: the error unknown-agent is "
                    "compared as an item with found false (TW-PROF-036)")
        else:
            return
        self.set_result(call_id, {**expected, "content": json.dumps(result, ensure_ascii=False)},
                        note)


def for_profile_astrion(scenario: Scenario) -> AstrionScenario:
    """``scenario``, written for profile strict, in the forms a router of profile astrion
    is given and gives (TW-CERT-028, TW-CERT-034); NotApplicable with the reason when it
    cannot be (TW-CERT-035)."""
    work = _Translation(scenario)
    scripts: dict[str, tuple[Reply, ...]] = {}
    # The Team Leader's script first: its calls create the sub-agents the others name.
    order = sorted(scenario.scripts, key=lambda agent: agent != LEADER_NAME)
    for agent in order:
        replies = []
        for reply in scenario.scripts[agent]:
            calls = tuple((call_id, *work.call(agent, call_id, tool, arguments))
                          for call_id, tool, arguments in reply.tool_calls)
            replies.append(replace(reply, tool_calls=calls))
        scripts[agent] = tuple(replies)
    # An expectation that names its requirements (TW-CERT-030) names the translation's too:
    # what it expects is written in astrion's forms by TW-CERT-028.
    expectations = tuple(
        replace(e, appended=tuple(work.results.get((i, j), m)
                                  for j, m in enumerate(e.appended)),
                requirements=(*e.requirements, "TW-CERT-028") if e.requirements else ())
        for i, e in enumerate(scenario.expectations))
    fields = {name: getattr(scenario, name) for name in Scenario.__dataclass_fields__}
    fields.update(profile="astrion", scripts={a: scripts[a] for a in scenario.scripts},
                  expectations=expectations,
                  requirements=tuple(dict.fromkeys((*scenario.requirements, "TW-CERT-028"))))
    return AstrionScenario(**fields, written_for=scenario.profile,
                           notes={k: "; ".join(v) for k, v in work.notes.items()})
