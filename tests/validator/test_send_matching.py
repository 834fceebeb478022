"""How the linter matches a call that sends a message to the delivery it made
(TW-TOOL-007, TW-TOOL-013, TW-TOOL-021, TW-PROF-022, TW-SEC-002; rules TW501, TW505,
TW511).

- ``ask_sub_agent`` names its Ask's id: an Ask that reached the target with the same text
  but another id is reported at the call (TW501), not silently taken for it;
- under profile strict an ``ask_other_agent`` call written in the astrion form
  (``question`` and ``question_id``) sends nothing that strict reads: the Ask in the
  target's conversation is one no call sent (TW511), and the call's Ask never arrived
  (TW501);
- a ``create_sub_agent`` call without a ``task`` (acceptance criteria only) sends no
  Task text the linter can expect: the delivered Task is one no call sent (TW511) and the
  call's message never arrived (TW505), and the lint completes;
- an ``ask_other_agent`` whose Ask arrived under its id but with other text is TW501 at
  the call, quoting the text that arrived.
"""

from __future__ import annotations

from conformance.sources.transcripts.builders import Agent, SessionBuilder

from teamwire.envelope import MessageType, Profile
from teamwire.validator import LintOptions, lint_value

TL, UIO, FSE = "Team Leader", "UI Operator_1", "Full-Stack Engineer_1"


def _bundle_findings(builder: SessionBuilder) -> list[tuple[str, str, str | None]]:
    report = lint_value(builder.bundle(), "bundle.json", LintOptions(profile=Profile.STRICT))
    return sorted((f.rule, f.message, f.pointer) for f in report.findings
                  if f.rule.startswith("TW5"))


def test_an_ask_that_arrived_with_another_id_is_reported_at_the_call() -> None:
    builder = SessionBuilder()
    uio = builder.create("ui-operator", "UI Operator", 1, "Design the page.")
    call_id = builder.call(builder.leader, "ask_sub_agent", {
        "agent_id": 1, "role_id": "ui-operator", "question": "Which palette?",
        "question_id": "ask_tl_001"})
    builder.deliver(uio, builder._envelope(MessageType.ASK, builder.leader, "Which palette?",
                                           "ask_tl_002"))
    uio.messages.append({"role": "assistant", "content": "Blue."})
    builder.result(builder.leader, call_id, builder._envelope(
        MessageType.ANSWER, uio, "Blue.", question_id="ask_tl_002"))
    assert _bundle_findings(builder) == [
        ("TW501", f"ask_sub_agent: the Ask reached {UIO} with id 'ask_tl_002', not "
         "'ask_tl_001'", f"/agents/{TL}/messages/4/tool_calls/0"),
        ("TW504", "ask_sub_agent asked 'ask_tl_001' but its result answers 'ask_tl_002'",
         f"/agents/{TL}/messages/5/content"),
    ]


def test_an_astrion_form_ask_other_agent_sends_nothing_under_strict() -> None:
    builder = SessionBuilder()
    uio = builder.create("ui-operator", "UI Operator", 1, "Design the page.")
    fse = builder.create("full-stack-engineer", "Full-Stack Engineer", 1, "Build the API.")
    builder.call(fse, "ask_other_agent", {"target_agent_id": 1, "role_id": "ui-operator",
                                          "question": "Which colour?",
                                          "question_id": "ask_fse_001"}, "Asking.")
    builder.deliver(builder.leader, builder._envelope(MessageType.PROGRESS, fse, "Asking."))
    builder.deliver(uio, builder._envelope(MessageType.ASK, fse, "Which colour?", "ask_fse_001"))
    assert _bundle_findings(builder) == [
        ("TW501", f"ask_other_agent: no Ask from {FSE} reached {UIO}",
         f"/agents/{FSE}/messages/2/tool_calls/0"),
        ("TW511", f"Ask 'ask_fse_001' from {FSE}: no call in {FSE}'s conversation sent it",
         f"/agents/{UIO}/messages/2/content"),
    ]


def test_a_create_call_with_acceptance_but_no_task_expects_no_task_text() -> None:
    builder = SessionBuilder()
    call_id = builder.call(builder.leader, "create_sub_agent", {
        "agent_id": 1, "role_id": "ui-operator", "acceptance": ["contrast checked"]})
    builder.result(builder.leader, call_id, {"success": True, "agent_id": 1,
                                             "role_id": "ui-operator", "display_name": UIO,
                                             "task_id": "task_001"})
    uio = builder.agents[UIO] = Agent(UIO, "ui-operator", 1,
                                      [{"role": "system", "content": "You design."}])
    builder.deliver(uio, builder._envelope(MessageType.TASK, builder.leader,
                                           "Design.\n\n验收标准：\n- contrast checked",
                                           "task_001"))
    assert _bundle_findings(builder) == [
        ("TW505", f"create_sub_agent: the message never reached {UIO}",
         f"/agents/{TL}/messages/2/tool_calls/0"),
        ("TW511", f"Task 'task_001' from {TL}: no call in {TL}'s conversation sent it",
         f"/agents/{UIO}/messages/1/content"),
    ]


def test_an_ask_other_agent_delivered_with_other_text_is_reported_at_the_call() -> None:
    builder = SessionBuilder()
    uio = builder.create("ui-operator", "UI Operator", 1, "Design the page.")
    fse = builder.create("full-stack-engineer", "Full-Stack Engineer", 1, "Build the API.")
    builder.call(fse, "ask_other_agent", {"target_agent_id": 1, "role_id": "ui-operator",
                                          "content": "Which colour?",
                                          "message_id": "ask_fse_001"}, "Asking.")
    builder.deliver(builder.leader, builder._envelope(MessageType.PROGRESS, fse, "Asking."))
    builder.deliver(uio, builder._envelope(MessageType.ASK, fse, "Which font?", "ask_fse_001"))
    assert _bundle_findings(builder) == [
        ("TW501", f"ask_other_agent: the Ask 'ask_fse_001' reached {UIO} with other content "
         "than the call's ('Which font?')", f"/agents/{FSE}/messages/2/tool_calls/0")]
