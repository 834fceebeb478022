"""A forbidden call left open by a terminated sub-agent is reported once, as forbidden
(TW-TOOL-003, TW-TOOL-006, TW-ROUTE-020; rules TW403, TW505).

A sub-agent terminated while a call of its last reply had no result yet: the call may not
have run. When that call is a tool the sub-agent may not make at all (here the leader's
``create_sub_agent``), it is reported as forbidden (TW403) and is not taken for a call
that may have created an agent: the bundle lacking a conversation for that agent
(TW505) is no finding of its own.
"""

from __future__ import annotations

from conformance.sources.transcripts.builders import SessionBuilder

from teamwire.envelope import Profile
from teamwire.validator import LintOptions, lint_value


def test_a_terminated_sub_agents_open_create_call_is_only_forbidden() -> None:
    builder = SessionBuilder()
    uio = builder.create("ui-operator", "UI Operator", 1, "Design the page.")
    builder.call(uio, "create_sub_agent",
                 {"agent_id": 7, "role_id": "full-stack-engineer", "task": "Build the API."})
    builder.terminate(uio)
    builder.leader.messages.append({"role": "assistant", "content": "The UI work is stopped."})
    report = lint_value(builder.bundle(), "bundle.json", LintOptions(profile=Profile.STRICT))
    assert [(f.rule, f.message, f.pointer) for f in report.findings] == [
        ("TW403", "create_sub_agent is a Team Leader tool, called by a sub-agent",
         "/agents/UI Operator_1/messages/2/tool_calls/0")]
