"""The receiver an astrion envelope names, and where the linter says so (spec/12-profile-astrion.md).

TW-PROF-005 (the receiver header is invalid under profile strict, TW114), TW-PROF-006 (the header
names the receiver, a valid display name: TW112, TW208), TW-PROF-007 (the target attribute names
the receiver, and must agree with the header: TW117, TW208) and TW-PROF-008 (the subtype must fit
the type and the receiver: TW116).

Users read the findings: each test pins the message and the place it points at, which is the
part of the envelope the finding is about (docs/lint.md: line and column inside the content of
the message at the pointer): the receiver's name in the header, or the attribute on the tag.
"""

from __future__ import annotations

from teamwire.envelope import Envelope, Profile, render
from teamwire.validator import Finding, LintOptions, lint_value

TL, UIO, FSE = "Team Leader", "UI Operator_1", "Full-Stack Engineer_1"
ASK_ID = "msg_8d02e4a7c5"


def ask(attrs: tuple[tuple[str, str], ...] = (), receiver: str | None = None,
        content: str = "Ready?", label: str = "提问", tag: str = "Ask") -> str:
    return render(Envelope(UIO, label, ASK_ID, tag, content, attrs, receiver))


def lint(text: str, agent: str | None, profile: str = "astrion") -> list[Finding]:
    report = lint_value([{"role": "user", "content": text}], "case.json",
                        LintOptions(profile=Profile(profile), agent=agent))
    return [f for f in report.findings if f.rule != "TW009"]


def at_receiver(text: str, receiver: str) -> tuple[int, int]:
    """Line 1, the column of the receiver's name after ' 向 ' in the header."""
    header = text.split("\n", 1)[0]
    return 1, header.index(" 向 " + receiver) + len(" 向 ") + 1


def at_attribute(text: str, name: str) -> tuple[int, int]:
    """The line of the tag and the column where attribute ``name`` starts."""
    for number, line in enumerate(text.split("\n"), 1):
        if line.startswith("<Ask ") or line.startswith("<Output "):
            return number, line.index(f" {name}=") + 2
    raise AssertionError("no tag with attributes")


def where(finding: Finding) -> tuple[str, str | None, int | None, int | None, int | None]:
    return finding.rule, finding.pointer, finding.index, finding.line, finding.column


# -- the receiver header -----------------------------------------------------------------------


def test_strict_flags_the_receiver_header_at_the_receiver() -> None:
    # ' 向 ' also inside the content: the finding points at the header's, the first one.
    text = ask(receiver=FSE, content="Ask Tester_1 向 me if unsure.")
    findings = lint(text, FSE, profile="strict")
    messages = [(f.rule, f.message) for f in findings]
    assert ("TW114", "the header form '来自 A 向 B 的…' belongs to the astrion dialect") in messages
    tw114 = next(f for f in findings if f.rule == "TW114")
    assert where(tw114) == ("TW114", "/0/content", 0, *at_receiver(text, FSE))
    assert tw114.agent == FSE


def test_strict_flags_both_dialect_forms_of_one_envelope_each_where_it_is() -> None:
    # One check of TW114 sees the header's receiver and its label together, and reports
    # each form at its own place, in the order the header reads them.
    text = render(Envelope(UIO, "任务结束汇报", "out_uio_001", "Output", "Done.", (), TL))
    findings = [f for f in lint(text, TL, profile="strict") if f.rule == "TW114"]
    header = text.split("\n", 1)[0]
    assert [(f.message, f.line, f.column) for f in findings] == [
        ("the header form '来自 A 向 B 的…' belongs to the astrion dialect",
         *at_receiver(text, TL)),
        ("label '任务结束汇报' is the astrion dialect's completion label; profile strict uses "
         "'任务完成汇报'", 1, header.index("任务结束汇报") + 1)]


def test_header_receiver_other_than_the_owner() -> None:
    text = ask(receiver=FSE, content="Tell me 向 whom.")
    findings = lint(text, "Tester_1")
    assert [(f.rule, f.message) for f in findings] == [
        ("TW208", "message addressed to Full-Stack Engineer_1 is in the conversation of Tester_1")]
    assert where(findings[0]) == ("TW208", "/0/content", 0, *at_receiver(text, FSE))


def test_invalid_header_receiver_is_reported_at_the_receiver() -> None:
    bad = "Full-Stack Engineer_01"
    text = ask(receiver=bad)
    findings = lint(text, bad)
    assert [(f.rule, f.message) for f in findings] == [
        ("TW112", "display name is neither 'Team Leader' nor '{Role Name}_{n}' with n >= 1: "
                  "'Full-Stack Engineer_01'")]
    assert where(findings[0]) == ("TW112", "/0/content", 0, *at_receiver(text, bad))


def test_an_invalid_receiver_is_reported_in_every_message_naming_it() -> None:
    bad = "Full-Stack Engineer_01"
    messages = [{"role": "user", "content": ask(receiver=bad)},
                {"role": "user", "content": ask(receiver=bad).replace(ASK_ID, "msg_8d02e4a7c6")}]
    report = lint_value(messages, "case.json", LintOptions(profile=Profile.ASTRION, agent=bad))
    assert [(f.rule, f.index) for f in report.findings] == [("TW112", 0), ("TW112", 1)]


# -- the target attribute ----------------------------------------------------------------------


def test_target_conflicting_with_the_header() -> None:
    text = ask((("target", "Full-Stack Engineer_2"),), receiver=FSE)
    findings = lint(text, FSE)
    assert [(f.rule, f.message) for f in findings] == [
        ("TW117", "header names receiver Full-Stack Engineer_1 but target is Full-Stack Engineer_2")]
    assert where(findings[0]) == ("TW117", "/0/content", 0, *at_attribute(text, "target"))


def test_target_other_than_the_owner() -> None:
    text = ask((("target", FSE),))
    findings = lint(text, "Tester_1")
    assert [(f.rule, f.message) for f in findings] == [
        ("TW208", "message addressed to Full-Stack Engineer_1 is in the conversation of Tester_1")]
    assert where(findings[0]) == ("TW208", "/0/content", 0, *at_attribute(text, "target"))


# -- the subtype attribute ---------------------------------------------------------------------


def test_subtype_against_the_target_receiver() -> None:
    text = ask((("target", TL), ("subtype", "ask_other")))
    findings = lint(text, None)
    assert [(f.rule, f.message) for f in findings] == [
        ("TW116", "subtype 'ask_other' does not fit a 提问 to Team Leader")]
    assert where(findings[0]) == ("TW116", "/0/content", 0, *at_attribute(text, "subtype"))


def test_subtype_against_an_unknown_receiver() -> None:
    # No header receiver, no target and no known owner: the type alone decides.
    text = ask((("subtype", "progress_output"),))
    findings = lint(text, None)
    assert [(f.rule, f.message) for f in findings] == [
        ("TW116", "subtype 'progress_output' does not fit a 提问 to this receiver")]
    assert where(findings[0]) == ("TW116", "/0/content", 0, *at_attribute(text, "subtype"))


def test_subtype_against_the_owner_when_the_envelope_names_no_receiver() -> None:
    text = ask((("subtype", "ask_master"),))
    findings = lint(text, FSE)
    assert [(f.rule, f.message) for f in findings] == [
        ("TW116", "subtype 'ask_master' does not fit a 提问 to Full-Stack Engineer_1")]
