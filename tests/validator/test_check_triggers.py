"""A check is handed every text its trigger names: with ``always``, every text of its kind,
whatever it starts or ends with, wherever it sits (user message, natural output, tool
result); with prefixes or suffixes, every text that starts or ends with one of them, an
empty prefix or suffix naming every text."""

from __future__ import annotations

import json
from typing import Any

import pytest

from teamwire.validator import LintOptions, lint_value
from teamwire.validator.facts import AssistantText, Delivered, ToolResult, ToolText, UserText
from teamwire.validator.registry import REGISTRY, Check, Trigger

# Texts no shipped trigger looks at: nothing starts like an envelope, a tag or a header.
USER = "please summarise the report"
NATURAL = "Here is the summary you asked for."
TOOL_TEXT = "42 lines read"

TRANSCRIPT: list[dict[str, Any]] = [
    {"role": "user", "content": USER},
    {"role": "assistant", "content": None, "tool_calls": [
        {"id": "call_1", "type": "function",
         "function": {"name": "read_file", "arguments": json.dumps({"path": "a.txt"})}}]},
    {"role": "tool", "tool_call_id": "call_1", "content": TOOL_TEXT},
    {"role": "assistant", "content": NATURAL},
]


def _copied(value: Any) -> Any:
    if isinstance(value, list):
        return list(value)
    if isinstance(value, dict):
        return {k: list(v) if isinstance(v, list) else v for k, v in value.items()}
    return value


def _add_check(monkeypatch: pytest.MonkeyPatch, fact: type, trigger: Trigger | None,
               run: Any) -> None:
    """Register ``run`` as a check of ``fact`` for the rest of the test."""
    # The registry's tables copied for the test: the check is gone when the test ends.
    for name, value in list(vars(REGISTRY).items()):
        monkeypatch.setattr(REGISTRY, name, _copied(value))
    REGISTRY.add_check(Check(REGISTRY["TW005"], fact, run, trigger))


def _texts_seen(monkeypatch: pytest.MonkeyPatch, fact: type, trigger: Trigger | None) -> list[str]:
    """The texts a check of ``fact`` with ``trigger`` is handed while TRANSCRIPT is linted."""
    seen: list[str] = []
    _add_check(monkeypatch, fact, trigger, lambda found, report: seen.append(found.text))
    lint_value(TRANSCRIPT, "triggers.json", LintOptions(enabled=frozenset(REGISTRY.codes())))
    return seen


@pytest.mark.parametrize(("fact", "text"), [(UserText, USER), (AssistantText, NATURAL),
                                             (ToolText, TOOL_TEXT)])
def test_an_always_check_sees_every_text_of_its_kind(monkeypatch: pytest.MonkeyPatch,
                                                     fact: type, text: str) -> None:
    assert _texts_seen(monkeypatch, fact, None) == [text]


@pytest.mark.parametrize("trigger", [Trigger(prefixes=("42 ",)), Trigger(suffixes=(" read",))],
                         ids=repr)
def test_a_tool_text_reaches_a_check_its_trigger_names(monkeypatch: pytest.MonkeyPatch,
                                                      trigger: Trigger) -> None:
    assert _texts_seen(monkeypatch, ToolText, trigger) == [TOOL_TEXT]


@pytest.mark.parametrize("trigger", [
    Trigger(prefixes=("Here ",)),
    Trigger(prefixes=("Nothing", "Here")),
    Trigger(prefixes=("",)),
    Trigger(suffixes=("for.",)),
    Trigger(suffixes=("",)),
    Trigger(prefixes=("Nothing",), suffixes=("asked for.",)),
], ids=repr)
def test_natural_output_reaches_a_check_its_trigger_names(monkeypatch: pytest.MonkeyPatch,
                                                         trigger: Trigger) -> None:
    assert _texts_seen(monkeypatch, AssistantText, trigger) == [NATURAL]



TASK = ("来自 Team Leader 的任务发布\nid: task_001\n\n<Team Leader>\n<Task>\nFix the login page."
        "\n</Task>\n</Team Leader>")


@pytest.mark.parametrize("trigger", [
    Trigger(prefixes=("来自 Team Leader ",), content_prefixes=("Never",)),
    Trigger(suffixes=("</Team Leader>",), content_prefixes=("Never",)),
    Trigger(content_prefixes=("Fix ",)),
], ids=repr)
def test_a_delivery_reaches_a_check_its_trigger_names(monkeypatch: pytest.MonkeyPatch,
                                                     trigger: Trigger) -> None:
    # The same delivery twice: the second is the one a pass may take by its header line alone.
    seen: list[int] = []
    _add_check(monkeypatch, Delivered, trigger, lambda found, report: seen.append(found.index))
    task_again = TASK.replace("task_001", "task_002")
    lint_value([{"role": "user", "content": TASK}, {"role": "user", "content": task_again}],
               "deliveries.json", LintOptions(enabled=frozenset(REGISTRY.codes())))
    assert seen == [0, 1]


def _call(call_id: str, tool: str, arguments: dict[str, Any], result: dict[str, Any]) -> list[
        dict[str, Any]]:
    return [{"role": "assistant", "content": None, "tool_calls": [
                {"id": call_id, "type": "function",
                 "function": {"name": tool, "arguments": json.dumps(arguments)}}]},
            {"role": "tool", "tool_call_id": call_id, "content": json.dumps(result)}]


RESULTS = [
    *_call("call_1", "create_sub_agent",
           {"agent_id": 1, "role_id": "ui-operator", "task": "Design it."},
           {"success": True, "agent_id": 1}),
    *_call("call_2", "list_active_sub_agents", {}, {"success": True, "agents": []}),
    *_call("call_3", "create_sub_agent",
           {"agent_id": 2, "role_id": "ui-operator", "task": "Design it."},
           {"success": False, "error": {"code": "limit", "message": "too many"}}),
]


@pytest.mark.parametrize(("quiet", "handed"), [
    (None, ["create_sub_agent", "list_active_sub_agents", "create_sub_agent"]),
    (lambda tool, owner: tool == "create_sub_agent", ["list_active_sub_agents",
                                                      "create_sub_agent"]),
    (lambda tool, owner: True, ["create_sub_agent"]),
], ids=["no quiet test", "quiet about create_sub_agent", "quiet about every tool"])
def test_a_check_of_results_is_spared_only_the_successes_it_is_quiet_about(
        monkeypatch: pytest.MonkeyPatch, quiet: Any, handed: list[str]) -> None:
    # The check is the only one enabled: a successful result of a tool it is quiet about is
    # not handed out at all; an error result always is.
    seen: list[str] = []
    for name, value in list(vars(REGISTRY).items()):
        monkeypatch.setattr(REGISTRY, name, _copied(value))
    REGISTRY.add_check(Check(REGISTRY["TW005"], ToolResult,
                             lambda found, report: seen.append(found.tool), None, quiet))
    lint_value(RESULTS, "results.json", LintOptions(enabled=frozenset({"TW005"})))
    assert seen == handed


def test_the_shipped_check_of_results_still_reads_status_results() -> None:
    # TW416 is quiet about successful results of other tools, not about those of statuses.
    odd = _call("call_1", "list_active_sub_agents", {},
                {"success": True, "agents": [{"agent_id": 1, "status": "asleep"}]})
    report = lint_value(odd, "statuses.json")
    assert "TW416" in [f.rule for f in report.findings]
