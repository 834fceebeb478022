"""A send whose message never arrives (TW-DEL-001, TW-TOOL-020, TW-TOOL-011, TW-ROUTE-020; TW501, TW505).

Findings about a send are reported at the tool call that made it: the pointer names the call
inside the sender's message (docs/lint.md, "pointer"), and the message says which call, whose
message and which receiver. A termination of the receiver excuses a message that may still have
been queued: one sent before the termination, or by a sub-agent at any point (two conversations
give no order); never a message the leader sent after it.
"""

from __future__ import annotations

from typing import Any

from conformance.sources.transcripts.blocks import FSE, TL, lost_peer_ask, message_after_termination

from teamwire.validator import lint_value


def found(bundle: dict[str, Any], rule: str) -> list[tuple[str | None, str | None, str]]:
    return [(f.agent, f.pointer, f.message) for f in lint_value(bundle).findings if f.rule == rule]


def test_a_peers_ask_that_never_arrived() -> None:
    bundle = lost_peer_ask(terminated=False)
    messages = bundle["agents"][FSE]["messages"]
    at = next(i for i, m in enumerate(messages)
              if any(c["function"]["name"] == "ask_other_agent" for c in m.get("tool_calls") or ()))
    assert found(bundle, "TW501") == [
        (FSE, f"/agents/{FSE}/messages/{at}/tool_calls/0",
         "ask_other_agent: no Ask with id 'ask_fse_001' from Full-Stack Engineer_1 reached "
         "UI Operator_1")]


def test_the_peers_ask_is_excused_by_a_termination_earlier_in_the_leaders_conversation() -> None:
    assert found(lost_peer_ask(terminated=True), "TW501") == []


def test_a_message_sent_after_the_termination_is_not_excused() -> None:
    bundle, at = message_after_termination()
    assert found(bundle, "TW505") == [
        (TL, f"/agents/{TL}/messages/{at}/tool_calls/0",
         "send_message_to_sub_agent: the message never reached UI Operator_1")]
