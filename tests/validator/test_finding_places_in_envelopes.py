"""Where two envelope findings point (TW-RES-010, TW-ENV-001; rules TW115, TW606).

- A completion whose run result names another agent is TW606 at the run result's
  ``agent`` attribute, inside the content of the leader's message;
- an envelope that ends with a line feed is TW115 at that line feed, under the message's
  ``/content``.
"""

from __future__ import annotations

from conformance.sources.transcripts.builders import SessionBuilder

from teamwire.envelope import Envelope, MessageType, Profile, render
from teamwire.validator import LintOptions, lint_value

TL, UIO = "Team Leader", "UI Operator_1"
RUN_RESULT = ('<result agent="Full-Stack Engineer_1" state="timeout">\n<error>\nTook too long.\n'
              "</error>\n</result>")


def test_a_run_result_of_another_agent_is_reported_at_its_agent_attribute() -> None:
    builder = SessionBuilder()
    uio = builder.create("ui-operator", "UI Operator", 1, "Design the palette.")
    text = render(Envelope(sender=uio.name, label=MessageType.COMPLETION.label,
                           id="out_uio_001", tag=MessageType.COMPLETION.tag,
                           content=RUN_RESULT))
    builder.deliver(builder.leader, text)
    found = [(f.rule, f.message, f.pointer, f.line, f.column)
             for f in lint_value(builder.bundle()).findings]
    line = text.split("\n")[5]
    assert found == [
        ("TW606", f"run result speaks of 'Full-Stack Engineer_1', but the completion is from "
         f"{UIO}", f"/agents/{TL}/messages/4/content", 6, line.index("Full-Stack") + 1)]


def test_a_trailing_line_feed_is_reported_under_the_content() -> None:
    text = ("来自 UI Operator_1 的提问\nid: ask_uio_001\n\n<UI Operator_1>\n<Ask>\nHi\n</Ask>\n"
            "</UI Operator_1>\n")
    report = lint_value([{"role": "user", "content": text}], "case.json",
                        LintOptions(profile=Profile.STRICT, agent=TL))
    assert [(f.rule, f.pointer, f.line, f.column) for f in report.findings] == [
        ("TW115", "/0/content", 8, len("</UI Operator_1>") + 1)]
