"""The protocol tools of a profile as the linter needs them: name sets and argument validators."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import TYPE_CHECKING, Any

from teamwire import schemas
from teamwire.envelope import Profile
from teamwire.schemas.arguments import TEXT_PARAMETERS, ArgumentChecker, ProblemKind
from teamwire.schemas.compiled import Check, compile_check

if TYPE_CHECKING:
    from jsonschema import Draft202012Validator

__all__ = ["ASK_TOOLS", "DISPLAY_NAME_KEYS", "TARGETING_TOOLS", "TEXT_PARAMETERS", "ToolCatalog",
           "answered_id", "ask_other_form", "compile_check", "named_target", "tool_catalog"]

ASK_TOOLS = frozenset({"ask_master", "ask_other_agent", "ask_sub_agent"})
"""Tools whose successful result is an Answer envelope."""

TARGETING_TOOLS = frozenset({"terminate_sub_agent", "send_message_to_sub_agent", "ask_sub_agent",
                             "answer_sub_agent_question", "get_sub_agent_status",
                             "stop_sub_agent"})
"""Leader tools that name one sub-agent by ``agent_id`` (and optional ``role_id``), or in
astrion's form by ``display_name``."""


class Verdict(str, Enum):
    """Why the catalog says an agent may not call a tool."""

    LEADER_TOOL = "leader-tool"
    """A Team Leader tool, called by a sub-agent."""
    SUB_AGENT_TOOL = "sub-agent-tool"
    """A sub-agent tool, called by the Team Leader."""
    FORBIDDEN = "forbidden"
    """A tool no agent has (a sub-agent reports by natural output)."""
    REMOVED = "removed"
    """A tool removed in multi-agent mode."""


def _anything(_value: Any) -> bool:
    return True


@dataclass
class ToolCatalog:
    """Tool names of one profile and their argument validators, each built once.

    A dialect profile also accepts everything profile strict does (TW-PROF-004): its tool
    sets include strict's, and arguments are valid when they fit either profile's schema.
    """

    profile: Profile
    leader: frozenset[str]
    sub_agent: frozenset[str]
    base: frozenset[str]
    removed: frozenset[str]
    forbidden: frozenset[str]
    leader_only: frozenset[str]
    sub_agent_only: frozenset[str]
    protocol: frozenset[str]
    arguments: ArgumentChecker = field(default_factory=ArgumentChecker)
    result_texts: dict[str, tuple[str, ...]] = field(default_factory=dict)
    """Tools whose results the profile's implementation writes as text: the beginnings of
    their success texts (``ToolSet.result_texts``)."""
    _passes: dict[str, Check] = field(default_factory=dict)

    def pass_check(self, tool: str) -> Check:
        """A test passing the arguments of ``tool`` that have no problem at all (anything,
        for a tool that is not a protocol tool); what it fails, ``argument_errors`` explains."""
        passes = self._passes.get(tool)
        if passes is None:
            passes = self._passes[tool] = self.arguments.pass_test(tool) \
                if tool in self.protocol else _anything
        return passes

    def text_parameters(self, tool: str) -> frozenset[str]:
        """The parameters of ``tool`` that must not be blank (TW-TOOL-024); an argument the
        tool does not define is ignored (TW-TOOL-025), blank or not."""
        return self.arguments.text_parameters(tool) if tool in self.protocol else frozenset()

    def validator(self, tool: str) -> Draft202012Validator | None:
        """The arguments validator of protocol tool ``tool`` in this profile's own form."""
        if tool not in self.protocol:
            return None
        rules = self.arguments.rules(tool)
        return rules.validators[0] if rules.profiles else None

    def argument_errors(self, tool: str, arguments: Any, limit: int = 3) -> list[str]:
        """Up to ``limit`` reasons why ``arguments`` fit no schema of ``tool`` or hold a
        number that is not an integer where one is due; [] if neither (blank texts are the
        caller's to word)."""
        if tool not in self.protocol:
            return []
        # A problem of the whole object reads without the router's "arguments: " in front.
        return [problem.message if problem.pointer else problem.detail
                for problem in self.arguments.problems(tool, arguments, limit)
                if problem.kind is not ProblemKind.BLANK]


def tool_catalog(profile: Profile) -> ToolCatalog:
    """A new catalog of ``profile`` (a linter keeps one per profile in its memo, which
    builds its argument checks on first use)."""
    names = schemas.tool_names(profile.value)
    # A dialect accepts the tool sets of its implementation's earlier versions and
    # strict's (TW-PROF-004) beside its own.
    accepted = (profile.value,) if profile is Profile.STRICT \
        else (profile.value, *names.earlier, Profile.STRICT.value)
    leader: frozenset[str] = frozenset()
    sub: frozenset[str] = frozenset()
    for tool_set in accepted:
        found = schemas.tool_names(tool_set)
        leader |= frozenset(found.leader)
        sub |= frozenset(found.sub_agent)
    return ToolCatalog(
        profile=profile, leader=leader, sub_agent=sub, base=frozenset(names.base),
        removed=frozenset(names.removed), forbidden=frozenset(names.forbidden),
        leader_only=leader - sub, sub_agent_only=sub - leader, protocol=leader | sub,
        arguments=ArgumentChecker(accepted, shared=True), result_texts=dict(names.result_texts))


def ask_other_form(arguments: dict[str, Any], strict: bool) -> tuple[Any, Any, bool]:
    """(chosen id, text, is a notification) of an ask_other_agent call.

    Profile strict reads ``message_id`` and ``content``; an id starting with ``msg_`` makes
    the call a notification (TW-TYPE-010). The astrion form (``question`` and an optional
    ``question_id``) is always a question (TW-PROF-022); a strict-form call keeps its strict
    meaning under astrion too (TW-PROF-004).
    """
    if not strict and "question" in arguments and "content" not in arguments:
        return arguments.get("question_id"), arguments.get("question"), False
    chosen = arguments.get("message_id")
    return chosen, arguments.get("content"), type(chosen) is str and chosen.startswith("msg_")


DISPLAY_NAME_KEYS = {"agent_id": "display_name", "target_agent_id": "target_display_name"}
"""The argument that names a target by display name in astrion's form (TW-PROF-026), for
each argument that names it by instance number."""


def named_target(arguments: dict[str, Any], key: str, strict: bool) -> str | None:
    """The display name a call in astrion's form names its target by, in place of the
    instance number argument ``key``; None when it names none (or under strict)."""
    if strict or key in arguments:
        return None
    name = arguments.get(DISPLAY_NAME_KEYS.get(key, ""))
    return name if type(name) is str else None


def answered_id(arguments: dict[str, Any], tool: str, strict: bool) -> Any:
    """The id of the question an answer tool call answers."""
    if tool == "answer_sub_agent_question":
        return arguments.get("question_id")
    if not strict and "question_id" in arguments:
        return arguments.get("question_id")
    return arguments.get("message_id")
