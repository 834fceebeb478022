"""One linter lints many inputs and remembers what envelope heads it met (validator.memo):
what it learnt from one input never changes the findings of another. Two sessions may
give one display name to sub-agents of different roles, whose ids then carry different
abbreviations."""

from __future__ import annotations

import json
from typing import Any

from conformance.sources.transcripts.builders import SessionBuilder

from teamwire.envelope import Profile
from teamwire.validator import LintOptions, lint_value
from teamwire.validator.engine import Linter


def _session(role_id: str) -> dict[str, Any]:
    """A session with a sub-agent named 日志员_1 of role ``role_id``, whose Outputs reach the
    leader."""
    b = SessionBuilder()
    worker = b.create(role_id, "日志员", 1, "Summarise the logs.")
    b.work(worker, "Reading the logs.", "read_file", {"path": "app.log"}, "ok")
    b.say(worker, "Two warnings, no errors.")
    return b.bundle()


def _findings(report: Any) -> list[tuple[str, str | None, int | None, str]]:
    return [(f.rule, f.agent, f.index, f.message) for f in report.findings]


def test_a_name_of_another_role_in_a_later_input_is_checked_afresh() -> None:
    first = _session("worker")
    # The same session, but its sub-agent is of role web-runner, whose ids abbreviate as
    # 'wr': the 'w' of its Outputs' ids, right in the first input, is wrong here.
    text = json.dumps(first, ensure_ascii=False)
    second = json.loads(text.replace('"worker"', '"web-runner"'))
    for profile in (Profile.STRICT, Profile.ASTRION):
        options = LintOptions(profile=profile)
        alone = [_findings(lint_value(first, "a.json", options)),
                 _findings(lint_value(second, "b.json", options))]
        linter = Linter(options)
        for _ in range(2):
            assert [_findings(linter.lint_value(first, "a.json")),
                    _findings(linter.lint_value(second, "b.json"))] == alone
        if profile is Profile.STRICT:
            assert [f[:3] for f in alone[1] if f[0] == "TW305"] == [
                ("TW305", "Team Leader", 4), ("TW305", "Team Leader", 5)]
