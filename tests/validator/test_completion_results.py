"""TW606: the run result in a completion, checked on any run-result-shaped text."""

from __future__ import annotations

from conformance.sources.transcripts.builders import SessionBuilder
from hypothesis import given
from hypothesis import strategies as st

from teamwire.envelope import Envelope, MessageType, render
from teamwire.envelope.run_result import render_run_result
from teamwire.validator import lint_value
from teamwire.validator.scan import completion_result_problem, is_run_result

_NAMES = st.sampled_from(["UI Operator_1", "Full-Stack Engineer_1", "", "x y"])
_STATES = st.sampled_from(["error", "timeout", "completed", "running", "terminated"])
_ATTRIBUTE = st.tuples(st.sampled_from(["agent", "state", "id", "x-y"]),
                       st.text(st.characters(exclude_characters='"\n'), max_size=12))


@st.composite
def run_results(draw: st.DrawFn) -> str:
    attributes = draw(st.lists(_ATTRIBUTE, max_size=4))
    head = "<result" + "".join(f' {name}="{value}"' for name, value in attributes) + ">"
    summary = draw(st.sampled_from(["", "<summary>s</summary>\n"]))
    element = draw(st.sampled_from(["output", "error"]))
    body = draw(st.text(max_size=30))
    return f"{head}\n{summary}<{element}>\n{body}\n</{element}>\n</result>"


@given(run_results(), _NAMES)
def test_any_run_result_gets_a_verdict_inside_the_text(text: str, sender: str) -> None:
    assert is_run_result(text)
    problem = completion_result_problem(text, sender)
    if problem is not None:
        message, at = problem
        assert message and 0 <= at < len(text)


@given(_NAMES.filter(bool), _STATES, st.text(max_size=30))
def test_the_routers_own_results_pass_only_for_failed_turns(agent: str, state: str,
                                                            text: str) -> None:
    result = render_run_result(agent, state, text)
    problem = completion_result_problem(result, agent)
    assert (problem is None) is (state in ("error", "timeout"))
    assert completion_result_problem(result, agent + "x") is not None


def test_a_false_run_result_after_many_quiet_completions_is_still_found() -> None:
    # Earlier completions of the same head take the fast path; the run result must not.
    b = SessionBuilder()
    ui = b.create("ui-operator", "UI Operator", 1, "Design the palette.")
    for n in range(5):
        b.say(ui, f"Step {n} done.")
    b.deliver(b.leader, render(Envelope(
        sender=ui.name, label=MessageType.COMPLETION.label, id="out_uio_099",
        tag=MessageType.COMPLETION.tag,
        content=render_run_result("Full-Stack Engineer_1", "timeout", "Took too long."))))
    found = [(f.rule, f.index) for f in lint_value(b.bundle()).findings if f.rule == "TW606"]
    assert found == [("TW606", len(b.leader.messages) - 1)]


def test_a_false_run_result_delivered_to_a_sub_agent_is_reported_too() -> None:
    # The session checks decide on every conversation's completions, not only the leader's.
    b = SessionBuilder()
    ui = b.create("ui-operator", "UI Operator", 1, "Design the palette.")
    api = b.create("full-stack-engineer", "Full-Stack Engineer", 1, "Build the API.")
    b.deliver(api, render(Envelope(
        sender=ui.name, label=MessageType.COMPLETION.label, id="out_uio_050",
        tag=MessageType.COMPLETION.tag, content=render_run_result(api.name, "timeout", "Late."))))
    found = {(f.rule, f.agent) for f in lint_value(b.bundle()).findings}
    assert ("TW606", api.name) in found
