"""A role's abbreviation, from the spec's three steps (TW-ID-006), and the ids it goes into.

The expected abbreviations are a table worked out by hand from spec/04-ids.md#abbreviation:

1. the ASCII capitals ``A``-``Z`` of the role name, in order, lower-cased;
2. failing those, the first character of each non-empty segment of the role id, segments being
   separated by ``-`` or ``_``;
3. failing those, ``a``.

The table holds every example of the spec (the abbreviation table, ``Frontend Style Editor`` of
the allocation section, ``tl`` for the leader, TW-NAME-* display names) and role ids with ``-``,
``_``, both, repeated and trailing separators, digits and single words. Each row is checked
against ``abbreviation()`` and against the ids ``IdAllocator`` produces for an instance of the
role (TW-ID-003: ``{prefix}_{abbr}_{NNN}``), so a helper that is wrong the same way in both
places still fails here.
"""

from __future__ import annotations

from typing import Any

import pytest

from teamwire.envelope import IdAllocator, MessageType, abbreviation, is_role_id

# (role name, role id, abbreviation), each derived by hand from the three steps.
SPEC_EXAMPLES = [
    ("Team Leader", "team-leader", "tl"),
    ("UI Operator", "ui-operator", "uio"),
    ("Full-Stack Engineer", "full-stack-engineer", "fse"),
    ("Researcher", "researcher", "r"),
    ("测试工程师", "qa-engineer", "qe"),
    ("设计师", "3d-artist", "3a"),
    ("Frontend Style Editor", "frontend-style-editor", "fse"),
]

# Step 1: ASCII capitals of the role name win over any role id.
FROM_ROLE_NAME = [
    ("UI Operator", "zzz", "uio"),  # the role id is not consulted
    ("UI Operator", None, "uio"),
    ("Team Leader", None, "tl"),
    ("QA-Bot", "qa-bot", "qab"),
    ("iOS Developer", "ios-developer", "osd"),  # lower-case letters are skipped
    ("McKinsey Analyst", "analyst", "mka"),
    ("R2-D2 Unit", "r2-d2", "rdu"),  # digits of the name are not capitals
    ("ÉCOLE Teacher", "teacher", "colet"),  # É is not ASCII
    ("Worker_2", "worker", "w"),  # role name of display name Worker_2_10 (TW-NAME-003)
    ("X", "x-ray", "x"),
    ("数据 Analyst Pro", "data-analyst", "ap"),
    ("ＵＩ　Operator", "ui-operator", "o"),  # fullwidth Ｕ Ｉ are not ASCII: 'O' alone
]

# Step 2: no ASCII capital in the role name, so the role id's segments decide.
FROM_ROLE_ID = [
    ("测试工程师", "ui_operator", "uo"),  # '_' separates segments
    ("测试工程师", "ui-operator", "uo"),
    ("ui operator", "ui-operator", "uo"),  # lower-case role name: no capitals
    ("Σχεδιαστής", "sigma-x", "sx"),  # Greek capitals are not ASCII
    ("设计师", "data_pipeline-ops", "dpo"),  # both separators in one id
    ("设计师", "a__b", "ab"),  # empty segments have no first character
    ("设计师", "x-_y", "xy"),
    ("设计师", "trailing-", "t"),
    ("设计师", "lead_", "l"),
    ("设计师", "3d-artist_2", "3a2"),
    ("设计师", "ml-ops-01", "mo0"),
    ("设计师", "9", "9"),
    ("设计师", "researcher", "r"),
    ("设计师", "a" * 64, "a"),
    ("设计师", "qa-engineer", "qe"),
]

# Step 3: nothing from either: 'a'.
FALLBACK = [
    ("设计师", None, "a"),
    ("设计师", "", "a"),
    ("lower case only", None, "a"),
    ("数据分析师", None, "a"),
]

TABLE = SPEC_EXAMPLES + FROM_ROLE_NAME + FROM_ROLE_ID + FALLBACK


def rows(table: list[tuple[str, str | None, str]]) -> list[Any]:
    return [pytest.param(name, role_id, abbr, id=f"{name} / {role_id} -> {abbr}")
            for name, role_id, abbr in table]


def test_every_role_id_in_the_table_is_a_role_id() -> None:
    # The table's role ids follow TW-NAME-008, so the rows test the rule on real role ids.
    for _, role_id, _ in TABLE:
        assert role_id in (None, "") or is_role_id(role_id), role_id


@pytest.mark.parametrize("role_name,role_id,abbr", rows(TABLE))
def test_abbreviation_follows_the_three_steps(role_name: str, role_id: str | None, abbr: str) -> None:
    assert abbreviation(role_name, role_id) == abbr


def test_the_leader_is_tl() -> None:
    assert abbreviation("Team Leader") == "tl"
    assert abbreviation("Team Leader", "team-leader") == "tl"


ALLOCATED = [(name, role_id, abbr) for name, role_id, abbr in TABLE
             if name != "Team Leader" and role_id != ""]


@pytest.mark.parametrize("role_name,role_id,abbr", rows(ALLOCATED))
def test_allocated_ids_carry_the_senders_abbreviation(role_name: str, role_id: str | None,
                                                      abbr: str) -> None:
    sender = f"{role_name}_10"
    alloc = IdAllocator()
    assert alloc.allocate(MessageType.PROGRESS, sender, role_id) == f"out_{abbr}_001"
    assert alloc.allocate(MessageType.COMPLETION, sender, role_id) == f"out_{abbr}_002"
    assert alloc.allocate(MessageType.ASK, sender, role_id) == f"ask_{abbr}_001"
    assert alloc.allocate(MessageType.MESSAGE, sender, role_id) == f"msg_{abbr}_001"
    assert alloc.allocate(MessageType.ANSWER, sender, role_id) == f"ans_{abbr}_001"


def test_the_leaders_ids_carry_tl() -> None:
    alloc = IdAllocator()
    for role_id in (None, "team-leader"):
        assert alloc.allocate(MessageType.MESSAGE, "Team Leader", role_id).startswith("msg_tl_")
        assert alloc.allocate(MessageType.ASK, "Team Leader", role_id).startswith("ask_tl_")
        assert alloc.allocate(MessageType.ANSWER, "Team Leader", role_id).startswith("ans_tl_")


def test_the_display_name_is_split_at_its_last_underscore() -> None:
    # TW-NAME-003: Worker_2_10 is role 'Worker_2', agent 10; the role name gives 'w'.
    assert IdAllocator().allocate(MessageType.PROGRESS, "Worker_2_10", "worker") == "out_w_001"
    assert IdAllocator().allocate(MessageType.PROGRESS, "测试_工程师_3", "qa_engineer") == "out_qe_001"


def test_roles_that_abbreviate_alike_share_one_counter() -> None:
    # spec/04-ids.md#allocation: Full-Stack Engineer and Frontend Style Editor both give fse.
    alloc = IdAllocator()
    got = [alloc.allocate(MessageType.PROGRESS, "Full-Stack Engineer_1", "full-stack-engineer"),
           alloc.allocate(MessageType.PROGRESS, "Frontend Style Editor_1", "frontend-style-editor"),
           alloc.allocate(MessageType.PROGRESS, "设计师_1", "f-s-e")]
    assert got == ["out_fse_001", "out_fse_002", "out_fse_003"]
