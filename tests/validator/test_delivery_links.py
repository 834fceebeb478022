"""The send ↔ delivery matching the cross-conversation checks expose (``links=``), against
sessions built from the specification, which record where each message was sent and
delivered (conformance/sources/transcripts/spec_session.py)."""

from __future__ import annotations

from typing import Any

from conformance.sources.transcripts.blocks import reports
from conformance.sources.transcripts.spec_session import TL, SpecSession
from hypothesis import HealthCheck, given, settings

from teamwire.envelope import MessageType
from teamwire.validator import Link, Linter
from tests.validator.strategies import spec_sessions

# (sender, sent at, receiver, delivered at, type tag, as a tool result)
Edge = tuple[str, int, str, int, str, bool]

_KIND_TYPES = {"task": "Task", "message": "Message", "ask_master": "Ask", "ask_other": "Ask",
               "ask_sub": "Ask"}


def _expected(s: SpecSession) -> set[Edge]:
    """Every arrow the spec session's record implies: each message from its sending
    assistant message to its delivery, and each ask's answer from the answerer's message
    to the tool result of the ask call (TW-TYPE-013)."""
    edges: set[Edge] = set()
    for sent in s.sent:
        tag = _KIND_TYPES.get(sent.kind) or _output_tag(s, sent.delivery)
        edges.add((sent.sender, s.index(sent.sender, sent.source), sent.receiver,
                   s.index(sent.receiver, sent.delivery), tag, False))
        if sent.answered_by is not None:
            call_id = sent.source["tool_calls"][0]["id"]
            result = next(m for m in s.agents[sent.sender].messages
                          if m.get("role") == "tool" and m.get("tool_call_id") == call_id)
            edges.add((sent.receiver, s.index(sent.receiver, sent.answered_by), sent.sender,
                       s.index(sent.sender, result), "Answer", True))
    return edges


def _output_tag(s: SpecSession, delivery: dict[str, Any]) -> str:
    # progress and completion share the tag Output: the label tells them apart
    return "Progress" if "任务进度输出" in delivery["content"].split("\n", 1)[0] else "Completion"


def _tag(mtype: MessageType) -> str:
    return {MessageType.PROGRESS: "Progress", MessageType.COMPLETION: "Completion"}.get(
        mtype, mtype.tag)


def _found(s: SpecSession) -> set[Edge]:
    links: list[Link] = []
    report = Linter().lint_value(s.bundle(), "spec.json", links=links)
    assert not report.findings
    assert len(links) == len(set(links))
    return {(lk.sender, lk.sent_at, lk.receiver, lk.delivered_at, _tag(lk.mtype), lk.tool_result)
            for lk in links}


@settings(max_examples=60, suppress_health_check=[HealthCheck.too_slow])
@given(spec_sessions())
def test_every_send_is_linked_to_its_delivery(s: SpecSession) -> None:
    assert _found(s) == _expected(s)


def test_a_call_link_names_the_call_and_an_output_link_names_none() -> None:
    s = SpecSession()
    ui = s.create("ui-operator", "UI Operator", 1)
    s.work(ui)
    links: list[Link] = []
    Linter().lint_value(s.bundle(), "spec.json", links=links)
    task = next(lk for lk in links if lk.mtype is MessageType.TASK)
    output = next(lk for lk in links if lk.mtype is MessageType.PROGRESS)
    assert (task.sender, task.call, task.receiver) == (TL, 0, ui.name)
    assert (output.sender, output.call, output.receiver) == (ui.name, None, TL)


def test_a_lint_without_a_list_records_nothing_and_finds_the_same() -> None:
    s = SpecSession()
    ui = s.create("ui-operator", "UI Operator", 1)
    s.say(ui)
    bundle = s.bundle()
    del bundle["agents"][ui.name]["messages"][1]  # the Task never arrived
    links: list[Link] = []
    with_links = Linter().lint_value(bundle, "b.json", links=links)
    without = Linter().lint_value(bundle, "b.json")
    assert with_links.findings == without.findings and with_links.findings
    # the lost Task has no arrow; the completion still has one
    assert [lk.mtype for lk in links] == [MessageType.COMPLETION]


def test_reports_that_arrive_swapped_are_still_linked_with_their_types() -> None:
    # UI Operator_1 said a progress report, then its completion; they reach the leader
    # swapped (TW507): each arrow still goes from the text said to its delivery, typed.
    bundle, done = reports(swapped=True)
    leader = bundle["agents"][TL]["messages"]
    progress = next(i for i, m in enumerate(leader) if "Reading the existing" in m["content"])
    said = bundle["agents"]["UI Operator_1"]["messages"]
    said_progress = next(i for i, m in enumerate(said) if m.get("content") == "Reading the "
                         "existing styles.")
    said_done = next(i for i, m in enumerate(said) if m.get("content") == "The palette is "
                     "done: blue and grey.")
    links: list[Link] = []
    report = Linter().lint_value(bundle, "swapped.json", links=links)
    assert [(f.rule, f.index) for f in report.findings] == [("TW507", done)]
    outputs = {(lk.sent_at, lk.delivered_at, lk.mtype) for lk in links
               if lk.sender == "UI Operator_1" and lk.receiver == TL}
    assert outputs == {(said_progress, progress, MessageType.PROGRESS),
                       (said_done, done, MessageType.COMPLETION)}
