"""More behaviours that version 1.1 of the specification changed or pinned, each failing a
router that keeps what 1.0 let it do (or a lookup that 1.0's text never ruled out) while it
passes every other scenario."""

from __future__ import annotations

from typing import Any

from conformance.sources.scenarios.asks import failed
from conformance.sources.scenarios.blocks import (
    FSE,
    FSE_TASK,
    TL,
    UIO,
    UIO_TASK,
    agent,
    call,
    calls,
    create,
    envelope,
    expect,
    says,
    scenario,
    schedule,
    tool,
)
from conformance.sources.scenarios.failures import failing
from conformance.sources.scenarios.routing import message, output

from teamwire.envelope.run_result import render_run_result

INHERITED = ("constructor", "__proto__", "toString")
"""Ids valid by TW-ID-001 that name members every object of JavaScript inherits: a router
that keeps ids as the keys of a plain object finds them there before any ask has used them."""

QUESTIONS = ("Which port?", "Which host?", "Which database?")
ANSWERS = ("Port 8080.", "Host localhost.", "PostgreSQL.")


def inherited_member_ids() -> dict[str, Any]:
    leader = [calls(create("call_tl_1", "full-stack-engineer", FSE_TASK)), says("Waiting.")]
    engineer = []
    steps: list[tuple[str, int]] = [(TL, 1), (TL, 2)]
    expectations = []
    for n, (chosen, question, answer) in enumerate(zip(INHERITED, QUESTIONS, ANSWERS,
                                                      strict=True)):
        leader += [calls(call(f"call_tl_{n + 2}", "answer_sub_agent_question", agent_id=1,
                              question_id=chosen, answer=answer)),
                   says("Answered.")]
        engineer.append(calls(call(f"call_fse_{n + 1}", "ask_master", question=question,
                                   question_id=chosen)))
        steps += [(FSE, n + 1), (TL, 2 * n + 3), (TL, 2 * n + 4)]
        expectations += [
            expect(TL, 2 * n + 3, envelope(FSE, "提问", chosen, "Ask", question)),
            expect(TL, 2 * n + 4, tool(f"call_tl_{n + 2}", {
                "success": True, "display_name": FSE, "question_id": chosen})),
            expect(FSE, n + 2, tool(f"call_fse_{n + 1}", envelope(
                TL, "回答", f"ans_tl_{n + 1:03d}", "Answer", answer,
                (("question_id", chosen),))["content"]))]
    leader.append(says("Done."))
    engineer.append(says("Configured."))
    steps += [(FSE, 4), (TL, 9)]
    expectations.append(expect(TL, 9, output(FSE, "out_fse_001", "Configured.")))
    return scenario(
        "inherited-member-ids",
        "Agent-chosen ids that name members every JavaScript object inherits (constructor, "
        "__proto__, toString) are ids like any other: each ask is accepted, its envelope "
        "carries the id verbatim, and the Team Leader's answer to it reaches the asker",
        ["TW-ID-001", "TW-ID-013", "TW-ID-014", "TW-ROUTE-012"],
        [agent(TL, *leader), agent(FSE, *engineer)],
        schedule(*steps), expectations)


SCENARIOS = [inherited_member_ids]


def content_as_parts_fails() -> dict[str, Any]:
    return scenario(
        "content-as-parts-fails",
        "A sub-agent's model call answered with an assistant message whose content is an "
        "array of text parts, not a string, is a failed call on every try: the Team Leader "
        "gets a completion whose content is a run result of state error, not the parts' "
        "text, and the sub-agent's next turn asks for the reply again",
        ["TW-ROUTE-031", "TW-ROUTE-019", "TW-RES-009", "TW-CERT-025"],
        [agent(TL, calls(create("call_tl_1", "ui-operator", UIO_TASK)), says("Waiting."),
               calls(call("call_tl_2", "send_message_to_sub_agent", agent_id=1,
                          message="Please try again.")),
               says("Asked again."), says("Good.")),
         agent(UIO, {**failing(says("The form is designed."), "content-parts"),
                     "fail_every_try": True})],
        schedule((TL, 1), (TL, 2), (UIO, 1), (TL, 3), (TL, 4), (UIO, 1), (TL, 5)),
        [expect(TL, 3, output(UIO, "out_uio_001", render_run_result(
            UIO, "error", "the model call failed"))),
         expect(UIO, 1, envelope(TL, "任务发布", "task_001", "Task", UIO_TASK),
                message("msg_tl_001", "Please try again.")),
         expect(TL, 5, output(UIO, "out_uio_002", "The form is designed."))])


SCENARIOS.append(content_as_parts_fails)


def default_ask_timeout() -> dict[str, Any]:
    return scenario(
        "default-ask-timeout",
        "With no ask_timeout knob set, an ask the Team Leader leaves unanswered fails with "
        "timeout 300 seconds after it was made (1.0's default was 600, the turn timeout's, at "
        "which the sub-agent's turn, started first, would end instead): the asker goes on "
        "within its turn; only a harness that keeps the router's clock waits that long",
        ["TW-ROUTE-017", "TW-ROUTE-032"],
        [agent(TL, calls(create("call_tl_1", "full-stack-engineer", FSE_TASK)),
               says("Waiting."), says("I will not answer that."), says("Fine.")),
         agent(FSE, calls(call("call_fse_1", "ask_master", question="Which port?",
                               question_id="ask_fse_001")),
               says("Using port 8080, the default."))],
        # the leader's model call that reads the ask is held until the ask has timed out
        schedule((TL, 1), (TL, 2), (FSE, 1), (TL, 3, "await"), (FSE, 2), (TL, 3), (TL, 4)),
        [expect(TL, 3, envelope(FSE, "提问", "ask_fse_001", "Ask", "Which port?")),
         expect(FSE, 2, tool("call_fse_1", failed("timeout"))),
         expect(TL, 4, output(FSE, "out_fse_001", "Using port 8080, the default."))],
        wait=300)


SCENARIOS.append(default_ask_timeout)


def clock_stopped_while_down() -> dict[str, Any]:
    steps = schedule((TL, 1), (TL, 2), (FSE, 1), (TL, 3, "crash"), (TL, 3), (TL, 4), (FSE, 2),
                     (TL, 5))
    # down longer than the ask timeout: a clock that ran meanwhile finds the deadline past
    steps[3]["down"] = 6
    return scenario(
        "clock-stopped-while-down",
        "Killed while a sub-agent's ask waits, and kept down longer than the ask timeout, the "
        "router comes back with the time the ask had left, not less: its clock did not run "
        "while it was down, so the Team Leader's answer after the restart reaches the asker",
        ["TW-DUR-010", "TW-DUR-004", "TW-ROUTE-012"],
        [agent(TL, calls(create("call_tl_1", "full-stack-engineer", FSE_TASK)),
               says("Waiting."),
               calls(call("call_tl_2", "answer_sub_agent_question", agent_id=1,
                          question_id="ask_fse_001", answer="Port 8080.")),
               says("Answered."), says("Done.")),
         agent(FSE, calls(call("call_fse_1", "ask_master", question="Which port?",
                               question_id="ask_fse_001")),
               says("Using port 8080."))],
        steps,
        [expect(TL, 3, envelope(FSE, "提问", "ask_fse_001", "Ask", "Which port?")),
         expect(TL, 4, tool("call_tl_2", {"success": True, "display_name": FSE,
                                           "question_id": "ask_fse_001"})),
         expect(FSE, 2, tool("call_fse_1", envelope(
             TL, "回答", "ans_tl_001", "Answer", "Port 8080.",
             (("question_id", "ask_fse_001"),))["content"])),
         expect(TL, 5, output(FSE, "out_fse_001", "Using port 8080."))],
        level="durable", knobs={"ask_timeout": 4})


SCENARIOS.append(clock_stopped_while_down)
