"""Who an id belongs to: abbreviations of the sender, and one message delivered twice
(TW-ID-006, TW-ID-010, TW-DEL-002; rules TW303, TW305).

- Without a session to give the sender's role id, only a role name with capitals has an
  abbreviation the linter can be sure of: ``Designer_1`` abbreviates as ``d`` (an
  ``xq`` is TW305), while an all-lowercase role name such as ``designer_1`` may have been
  abbreviated from a role id the linter does not know, so no abbreviation is wrong;
- one message delivered into two conversations is TW303 at the second delivery, pointing
  at the message's content.
"""

from __future__ import annotations

from conformance.sources.transcripts.builders import SessionBuilder

from teamwire.envelope import Profile
from teamwire.validator import LintOptions, lint_value

TL, UIO, FSE = "Team Leader", "UI Operator_1", "Full-Stack Engineer_1"


def envelope(sender: str, label: str, message_id: str, tag: str) -> str:
    return f"来自 {sender} 的{label}\nid: {message_id}\n\n<{sender}>\n<{tag}>\nHi\n</{tag}>\n</{sender}>"


def _lone(text: str) -> list[tuple[str, str]]:
    report = lint_value([{"role": "user", "content": text}], "case.json",
                        LintOptions(profile=Profile.STRICT, agent=TL))
    return [(f.rule, f.message) for f in report.findings]


def test_a_lowercase_role_name_has_no_certain_abbreviation() -> None:
    assert _lone(envelope("designer_1", "提问", "ask_xq_001", "Ask")) == []


def test_a_capitalised_role_name_abbreviates_by_its_capitals() -> None:
    assert _lone(envelope("Designer_1", "提问", "ask_xq_001", "Ask")) == [
        ("TW305", "id 'ask_xq_001' abbreviates the sender Designer_1 as 'xq'; expected 'd'")]


def test_one_message_delivered_to_two_conversations_is_reported_at_the_second() -> None:
    builder = SessionBuilder()
    uio = builder.create("ui-operator", "UI Operator", 1, "Design the page.")
    fse = builder.create("full-stack-engineer", "Full-Stack Engineer", 1, "Build the API.")
    builder.message(uio, "Use the blue palette.")
    builder.deliver(fse, uio.messages[-1]["content"])
    report = lint_value(builder.bundle(), "bundle.json", LintOptions(profile=Profile.STRICT))
    assert [(f.message, f.pointer) for f in report.findings if f.rule == "TW303"] == [
        (f"message 'msg_tl_001' is delivered to {UIO} (message 2) and again here",
         f"/agents/{FSE}/messages/2/content")]
