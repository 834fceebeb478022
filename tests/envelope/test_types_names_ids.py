"""Message types, display names, role ids, abbreviations and id allocation."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from teamwire.envelope import (
    IdAllocator,
    InvalidNameError,
    MessageType,
    Placement,
    Profile,
    Role,
    abbreviation,
    format_display_name,
    id_problem,
    is_envelope,
    is_role_id,
    name_problem,
    parse_display_name,
)
from teamwire.envelope.names import astrion_lookup


def test_six_types_five_tags_five_prefixes() -> None:
    assert len(MessageType) == 6
    assert {t.tag for t in MessageType} == {"Task", "Output", "Ask", "Message", "Answer"}
    assert MessageType.for_tag("Output") == (MessageType.PROGRESS, MessageType.COMPLETION)
    assert {t.label: t.prefix for t in MessageType} == {
        "任务发布": "task", "任务进度输出": "out", "任务完成汇报": "out",
        "提问": "ask", "消息": "msg", "回答": "ans"}


def test_who_sends_and_where() -> None:
    assert MessageType.TASK.senders == {Role.LEADER}
    assert MessageType.COMPLETION.senders == {Role.SUB_AGENT}
    assert MessageType.COMPLETION.receivers == {Role.LEADER}
    assert MessageType.MESSAGE.receivers == {Role.SUB_AGENT}
    assert MessageType.ANSWER.placement is Placement.TOOL_RESULT
    assert all(t.placement is Placement.USER_MESSAGE for t in MessageType
               if t is not MessageType.ANSWER)


def test_completion_label_depends_on_profile() -> None:
    assert MessageType.from_label("任务结束汇报") is None
    assert MessageType.from_label("任务结束汇报", Profile.ASTRION) is MessageType.COMPLETION
    assert MessageType.COMPLETION.label_in(Profile.ASTRION) == "任务结束汇报"
    assert MessageType.from_label("通知") is None


@pytest.mark.parametrize("name,role,n", [
    ("Team Leader", "Team Leader", None),
    ("UI Operator_1", "UI Operator", 1),
    ("Full-Stack Engineer_12", "Full-Stack Engineer", 12),
    ("数据分析师_3", "数据分析师", 3),
    ("Role_With_Underscore_2", "Role_With_Underscore", 2),
])
def test_display_names_parse(name: str, role: str, n: int | None) -> None:
    parsed = parse_display_name(name)
    assert (parsed.role_name, parsed.agent_id) == (role, n)
    assert str(parsed) == name


@pytest.mark.parametrize("name", [
    "", "UI Operator", "UI Operator_0", "UI Operator_01", "Team Leader_1", "A<b_1", "A\x07_1",
    " UI Operator_1", "A 的 B_1", "A\nB_1", 'Q"_1', "Coder _1",
])
def test_bad_display_names_are_refused(name: str) -> None:
    assert name_problem(name) is not None
    with pytest.raises(InvalidNameError):
        parse_display_name(name)


@given(st.sampled_from(["UI Operator", "Full-Stack Engineer", "设计师"]), st.integers(1, 10**6))
def test_format_and_parse_display_name_round_trip(role: str, n: int) -> None:
    assert parse_display_name(format_display_name(role, n)).agent_id == n


def test_role_ids() -> None:
    assert is_role_id("ui-operator") and is_role_id("a") and is_role_id("x_1-y")
    assert not is_role_id("UI") and not is_role_id("-a") and not is_role_id("a" * 65)
    assert is_role_id("a" * 64)


@pytest.mark.parametrize("role,role_id,abbr", [
    ("UI Operator", None, "uio"), ("Full-Stack Engineer", None, "fse"),
    ("Team Leader", None, "tl"), ("设计师", "ui-designer", "ud"), ("设计师", None, "a"),
])
def test_abbreviation(role: str, role_id: str | None, abbr: str) -> None:
    assert abbreviation(role, role_id) == abbr


def test_allocation_never_collides_for_two_instances_of_one_role() -> None:
    alloc = IdAllocator()
    ids = [alloc.allocate(MessageType.PROGRESS, name) for name in
           ["UI Operator_1", "UI Operator_2", "UI Operator_1", "UI Operator_2"]]
    assert ids == ["out_uio_001", "out_uio_002", "out_uio_003", "out_uio_004"]
    assert alloc.allocate(MessageType.TASK, "Team Leader") == "task_001"
    assert alloc.allocate(MessageType.MESSAGE, "Team Leader") == "msg_tl_001"


def test_observe_moves_counters_past_seen_ids() -> None:
    alloc = IdAllocator()
    alloc.observe("ask_fse_007")
    alloc.observe("not-an-id")
    assert alloc.allocate(MessageType.ASK, "Full-Stack Engineer_1") == "ask_fse_008"


@given(st.lists(st.tuples(st.sampled_from(list(MessageType)),
                          st.sampled_from(["Team Leader", "UI Operator_1", "UI Operator_2",
                                           "Unit Inspection Officer_1"])), max_size=60))
def test_allocated_ids_are_unique_and_well_shaped(calls: list[tuple[MessageType, str]]) -> None:
    alloc = IdAllocator()
    ids = [alloc.allocate(t, s) for t, s in calls]
    assert len(set(ids)) == len(ids)
    assert all(id_problem(i, t) is None for i, (t, _) in zip(ids, calls, strict=True))


def test_id_shapes() -> None:
    assert id_problem("task_001") is None
    assert id_problem("ask_fse_001", MessageType.ASK) is None
    assert id_problem("ask_fse_001", MessageType.ANSWER) is not None
    assert id_problem("msg_0123456789") is not None
    assert id_problem("msg_0123456789", profile=Profile.ASTRION) is None
    assert id_problem("task_1") is not None
    assert id_problem("task_000") is not None and id_problem("task_0001") is not None
    assert id_problem("task_1000") is None and id_problem("out_uio_010") is None


def test_allocation_pads_below_1000_only() -> None:
    alloc = IdAllocator()
    alloc.observe("task_998")
    assert [alloc.allocate(MessageType.TASK, "Team Leader") for _ in range(3)] == [
        "task_999", "task_1000", "task_1001"]


def test_is_envelope_tells_protocol_messages_from_human_ones() -> None:
    assert is_envelope("来自 Team Leader 的任务发布\nid: task_001\n")
    assert is_envelope("来自 A 向 B 的消息")
    assert not is_envelope("Please fix the login page.")
    assert not is_envelope("[系统通知|任务发布] 来自 Team Leader 的任务发布")


def test_astrion_lookup_prefers_the_exact_name_then_the_first_in_other_case() -> None:
    names = ["ui operator_1", "UI Operator_1", "Ui Operator_1"]
    assert astrion_lookup("UI Operator_1", names) == "UI Operator_1"
    assert astrion_lookup("UI OPERATOR_1", names) == "ui operator_1"
    assert astrion_lookup("UI Operator_2", names) is None
