"""Profile astrion numbers a sub-agent created without agent_id (TW-PROF-015).

"An astrion validator MUST accept create_sub_agent without agent_id and MUST expect the new
sub-agent's agent_id to be one more than the highest agent_id its role has had in the session,
or 1 for the role's first sub-agent." The session's sub-agents include those that existed before
the Team Leader's conversation (a bundle may hold conversations the leader never creates). The
Task of the numbered sub-agent must then be found in that sub-agent's conversation: a Task no
call sent is TW511.
"""

from __future__ import annotations

from typing import Any

import pytest
from conformance.sources.transcripts import blocks
from conformance.sources.transcripts.vector_runner import run_case

UIO2 = ("UI Operator_2", "ui-operator", 2)


def rules(bundle: dict[str, Any]) -> list[tuple[str, str | None, int | None]]:
    report = run_case({"input": bundle, "profile": "astrion"})
    return [(f.rule, f.agent, f.index) for f in report.findings]


@pytest.mark.xfail(strict=True, reason="bug: the leader's creations are numbered from 0 per role, "
                   "ignoring sub-agents that existed before the leader's conversation, so the "
                   "correctly numbered UI Operator_3 is taken as pre-existing and its Task as sent "
                   "by no call (TW511)")
def test_numbered_after_a_sub_agent_of_its_role_that_existed_before() -> None:
    assert rules(blocks.numbered_after_preexisting(3, (UIO2,))) == []


def test_numbered_as_if_the_earlier_sub_agent_did_not_exist() -> None:
    assert rules(blocks.numbered_after_preexisting(1, (UIO2,))) == [
        ("TW511", "UI Operator_1", 1)]


def test_an_earlier_sub_agent_without_a_number_raises_no_number() -> None:
    # 'UI Operator_0' is no valid display name (n >= 1) and is reported as such; it does not
    # make the next UI Operator number 2.
    found = rules(blocks.numbered_after_preexisting(1, (("UI Operator_0", "ui-operator", 0),)))
    assert ("TW511", "UI Operator_1", 1) not in found
