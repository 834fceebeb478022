"""Reports and asks whose delivered text differs from what was said or sent
(TW-TYPE-016, TW-TOOL-020, TW-SEC-002; rules TW501, TW511, TW512).

- A sub-agent said one text, and the leader received an Output with another: the said
  text never reached the leader (TW512), and the received one is an Output its sender
  never said (TW511), both naming the sub-agent;
- an Ask that reached the leader under the id the ``ask_master`` call chose, but with
  other text, is TW501 at the call, quoting the delivered text shortened to 40
  characters.
"""

from __future__ import annotations

from conformance.sources.transcripts.builders import SessionBuilder

from teamwire.envelope import MessageType, Profile
from teamwire.validator import LintOptions, lint_value

TL, UIO = "Team Leader", "UI Operator_1"


def _lint(builder: SessionBuilder) -> list[tuple[str, str, str | None]]:
    report = lint_value(builder.bundle(), "bundle.json", LintOptions(profile=Profile.STRICT))
    return sorted((f.rule, f.message, f.pointer) for f in report.findings)


def test_an_output_with_other_text_than_was_said_is_reported_at_both_ends() -> None:
    builder = SessionBuilder()
    uio = builder.create("ui-operator", "UI Operator", 1, "Design the page.")
    uio.messages.append({"role": "assistant", "content": "The page is done."})
    builder.deliver(builder.leader, builder._envelope(MessageType.COMPLETION, uio,
                                                      "The page is finished."))
    builder.leader.messages.append({"role": "assistant", "content": "Thanks."})
    assert _lint(builder) == [
        ("TW511", f"Output 'out_uio_001' from {UIO}: {UIO} said no such text ('The page is "
         "finished.'), or it is reported already", f"/agents/{TL}/messages/4/content"),
        ("TW512", f"output 'The page is done.' of {UIO} never reached the Team Leader as an "
         "Output", f"/agents/{UIO}/messages/2/content"),
    ]


def test_an_ask_delivered_with_other_text_quotes_it_shortened() -> None:
    builder = SessionBuilder()
    uio = builder.create("ui-operator", "UI Operator", 1, "Design the page.")
    builder.call(uio, "ask_master", {"question": "Which palette?",
                                     "question_id": "ask_uio_001"}, "Asking.")
    builder.deliver(builder.leader, builder._envelope(MessageType.PROGRESS, uio, "Asking."))
    delivered = "Which palette should the registration page use for its buttons and links?"
    builder.deliver(builder.leader, builder._envelope(MessageType.ASK, uio, delivered,
                                                      "ask_uio_001"))
    quoted = delivered[:39] + "…"
    assert _lint(builder) == [
        ("TW501", f"ask_master: the Ask 'ask_uio_001' reached {TL} with other content than "
         f"the call's ({quoted!r})", f"/agents/{UIO}/messages/2/tool_calls/0")]
