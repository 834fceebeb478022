"""The kind of report a sub-agent's natural output is delivered as (TW-TYPE-016, TW-TYPE-004; TW513).

Output of an assistant message that also calls tools is progress (任务进度输出); output of one
without tool calls ends the turn and is a completion (任务完成汇报). Delivered as the other kind,
the report is flagged in the Team Leader's conversation, at the content of the delivery, with a
message that says which kind of output it was and which label it got.
"""

from __future__ import annotations

from typing import Any

from conformance.sources.transcripts.builders import SessionBuilder

from teamwire.envelope import MessageType
from teamwire.validator import lint_value

PROGRESS, COMPLETION = MessageType.PROGRESS.label, MessageType.COMPLETION.label


def session(*steps: str) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """UI Operator_1 reports each step: 'work' with a tool call, 'done' without."""
    b = SessionBuilder()
    ui = b.create("ui-operator", "UI Operator", 1, "Design the palette.")
    for n, step in enumerate(steps, 1):
        if step == "work":
            b.work(ui, f"Step {n}: checking styles.", "read_file", {"path": "a.css"}, "body{}")
        else:
            b.say(ui, f"Step {n}: the palette is done.")
    return b.bundle(), b.leader.messages


def relabel(messages: list[dict[str, Any]], message_id: str, label: str) -> int:
    """Give the delivery with ``message_id`` another label; return its index."""
    for index, message in enumerate(messages):
        content = message.get("content")
        if isinstance(content, str) and f"\nid: {message_id}\n" in content:
            header, rest = content.split("\n", 1)
            message["content"] = header[:header.rindex("的") + 1] + label + "\n" + rest
            return index
    raise AssertionError(message_id)


def tw513(bundle: dict[str, Any]) -> list[tuple[str | None, str | None, str]]:
    return [(f.agent, f.pointer, f.message) for f in lint_value(bundle).findings
            if f.rule == "TW513"]


def test_progress_delivered_as_completion() -> None:
    bundle, leader = session("work", "done")
    at = relabel(leader, "out_uio_001", COMPLETION)
    assert tw513(bundle) == [
        ("Team Leader", f"/agents/Team Leader/messages/{at}/content",
         "output of UI Operator_1 with tool calls is delivered as 任务完成汇报 (out_uio_001)")]


def test_completion_delivered_as_progress() -> None:
    bundle, leader = session("work", "done")
    at = relabel(leader, "out_uio_002", PROGRESS)
    assert tw513(bundle) == [
        ("Team Leader", f"/agents/Team Leader/messages/{at}/content",
         "output of UI Operator_1 without tool calls is delivered as 任务进度输出 (out_uio_002)")]


def test_mismatch_found_after_the_outputs_fall_out_of_step() -> None:
    # The leader's copies arrive in another order: pairing them by text still finds the kind.
    bundle, leader = session("work", "done", "work")
    first = next(i for i, m in enumerate(leader) if "\nid: out_uio_001\n" in str(m.get("content")))
    leader[first], leader[first + 1] = leader[first + 1], leader[first]
    at = relabel(leader, "out_uio_002", PROGRESS)
    assert tw513(bundle) == [
        ("Team Leader", f"/agents/Team Leader/messages/{at}/content",
         "output of UI Operator_1 without tool calls is delivered as 任务进度输出 (out_uio_002)")]


def test_each_kind_as_labelled_is_clean() -> None:
    bundle, _ = session("work", "done", "work", "done")
    assert tw513(bundle) == []
