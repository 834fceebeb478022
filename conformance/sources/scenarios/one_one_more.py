"""More behaviours that version 1.1 of the specification changed or pinned, each failing a
router that keeps what 1.0 let it do (or a lookup that 1.0's text never ruled out) while it
passes every other scenario."""

from __future__ import annotations

from typing import Any

from conformance.sources.scenarios.blocks import (
    FSE,
    FSE_TASK,
    TL,
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
from conformance.sources.scenarios.routing import output

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
