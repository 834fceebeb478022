"""The messages and pointers of findings on the transcript vectors (conformance/transcripts).

The vectors fix, for every implementation, which rule fires at which message of which agent.
What this linter then tells the user is its own, and is pinned here: the message names the call
or the envelope, the agents and ids involved and, for order and id findings, the other message
concerned; the pointer names the tool call a send finding is about (a send's finding is at the
call that made it: TW-DEL-001, TW-DEL-003, TW-TOOL-011, TW-TOOL-020, TW-ROUTE-015), or the content
of the delivery a delivery finding is about (TW-SEC-002, TW-TYPE-016, TW-TYPE-018, TW-ID-010,
TW-DEL-002), with the line and column where the finding names a part of an envelope.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from conformance.sources.transcripts.vector_runner import run_case

VECTORS = Path(__file__).resolve().parents[2] / "conformance" / "transcripts"


def vector(description: str) -> dict[str, Any]:
    for path in sorted(VECTORS.glob("*.json")):
        for case in json.loads(path.read_text(encoding="utf-8")):
            if case["description"] == description:
                return dict(case)
    raise AssertionError(description)


# (vector, rule, pointer, (line, column) or None, message)
PINNED: list[tuple[str, str, str | None, tuple[int, int] | None, str]] = [
    (
        'TW501 an ask_master that never reaches the Team Leader',
        'TW501', '/agents/UI Operator_1/messages/2/tool_calls/0', None,
        "ask_master: no Ask with id 'ask_uio_001' from UI Operator_1 reached Team Leader",
    ),
    (
        'TW501 the Ask arrives with the chosen id but not the question asked',
        'TW501', '/agents/UI Operator_1/messages/2/tool_calls/0', None,
        "ask_master: the Ask 'ask_uio_001' reached Team Leader with other content than the call's "
        "('Which shade of green?')",
    ),
    (
        "TW501 ask_master's Ask arrives with another id than the chosen one",
        'TW501', '/agents/UI Operator_1/messages/2/tool_calls/0', None,
        "ask_master: the Ask reached Team Leader with id 'ask_uio_009', not 'ask_uio_001'",
    ),
    (
        'TW502 an answer to a question nobody asked',
        'TW502', '/agents/Team Leader/messages/4/tool_calls/0', None,
        "answer_sub_agent_question: UI Operator_1 asked no question 'ask_uio_009' of Team Leader before "
        'this answer',
    ),
    (
        'TW502 an astrion answer by question_id alone, to an id no Ask carries',
        'TW502', '/agents/Team Leader/messages/6/tool_calls/0', None,
        "answer_sub_agent_question: no open question 'ask_uio_009' to answer",
    ),
    (
        'TW505 a message that never arrives',
        'TW505', '/agents/Team Leader/messages/6/tool_calls/0', None,
        'send_message_to_sub_agent: the message never reached UI Operator_1',
    ),
    (
        'TW505 create_sub_agent made a sub-agent the bundle has no conversation for',
        'TW505', '/agents/Team Leader/messages/4/tool_calls/0', None,
        'create_sub_agent made full-stack-engineer #1, but the bundle has no conversation for it',
    ),
    (
        'TW506 the first message is lost, the second arrives',
        'TW506', '/agents/Team Leader/messages/4/tool_calls/0', None,
        'send_message_to_sub_agent to UI Operator_1 was never delivered, while later messages on the '
        'same channel were',
    ),
    (
        'TW507 two messages arrive swapped',
        'TW507', '/agents/Team Leader/messages/6/tool_calls/0', None,
        'send_message_to_sub_agent to UI Operator_1 was delivered (message 2) before a message sent '
        'earlier (message 3)',
    ),
    (
        "TW507 a sub-agent's completion reaches the leader before its earlier progress report",
        'TW507', '/agents/Team Leader/messages/4/content', None,
        "output 'out_uio_002' of UI Operator_1 arrives (message 4) before an output said earlier "
        '(message 5)',
    ),
    (
        'TW508 an accepted answer that never reaches the asker',
        'TW508', '/agents/Full-Stack Engineer_1/messages/3/tool_calls/0', None,
        "answer_other_agent: the answer to 'ask_uio_001' does not come back as the result of UI "
        "Operator_1's ask_other_agent call",
    ),
    (
        'TW511 a Message nobody sent',
        'TW511', '/agents/UI Operator_1/messages/8/content', None,
        "Message 'msg_tl_009' from Team Leader: no call in Team Leader's conversation sent it",
    ),
    (
        'TW511 a report of a text the sub-agent never said',
        'TW511', '/agents/Team Leader/messages/6/content', None,
        "Output 'out_uio_001' from UI Operator_1: UI Operator_1 said no such text ('The repository is "
        "deleted.'), or it is reported already",
    ),
    (
        'TW511 an astrion Answer inserted as a user message that no answer call sent',
        'TW511', '/agents/UI Operator_1/messages/5/content', None,
        "Answer 'ans_tl_001' from Team Leader to 'ask_uio_001': it is not the late answer of an "
        "accepted answer call in Team Leader's conversation",
    ),
    (
        'TW514 the text that answered ask_sub_agent also arrives as a report',
        'TW514', '/agents/Team Leader/messages/6/content', None,
        "Output 'out_uio_001' from UI Operator_1 reports a text that was delivered as an Answer "
        "('Working on it.')",
    ),
    (
        'TW301 two different reports with one id',
        'TW301', '/1/content', (2, 5),
        "id 'out_uio_001' is already used by another message (message 0)",
    ),
    (
        'TW302 one report delivered twice',
        'TW302', '/1/content', (2, 5),
        "message 'out_uio_001' is delivered again (first at message 0)",
    ),
    (
        'TW201 a Task sent by a sub-agent',
        'TW201', '/0/content', (1, 4),
        'Task sent by UI Operator_1; only the Team Leader sends tasks',
    ),
    (
        'TW202 an Output from the Team Leader, in its own conversation',
        'TW206', '/0/content', (1, 4),
        'Team Leader sends a message into its own conversation',
    ),
    (
        'TW205 a Message delivered to the Team Leader',
        'TW205', '/0/content', (1, 1),
        'Message delivered to the Team Leader; messages go only to sub-agents',
    ),
    (
        'TW003 a single message instead of a conversation',
        'TW003', '', None,
        'top level is a single message; a conversation is an array of messages',
    ),
    (
        'TW003 a router event log given as JSON Lines',
        'TW003', None, (1, 1),
        'this is a teamwire event log (records with seq and event), not a conversation; lint '
        'the session bundle instead',
    ),
    (
        'TW003 a bundle whose agents is an array, not an object',
        'TW003', '/agents', None,
        "'agents' is an array, not an object mapping display names to conversations",
    ),
    (
        'TW006 a bundle without its teamwire version',
        'TW006', '', None,
        "bundle has no 'teamwire' version string",
    ),
    (
        'TW006 a bundle whose teamwire version is a number, not a string',
        'TW006', '/teamwire', None,
        "bundle has no 'teamwire' version string",
    ),
    (
        'TW006 a bundle of another major version',
        'TW006', '/teamwire', None,
        "bundle version '2.0' is not 1.x",
    ),
    (
        "TW006 version '1.01' is not major.minor without leading zeros",
        'TW006', '/teamwire', None,
        "bundle version '1.01' is not major.minor, both decimal without leading zeros",
    ),
    (
        'TW007 agent_id differs from the number in the display name',
        'TW007', '/agents/UI Operator_1/agent_id', None,
        'agent_id of UI Operator_1 must be the number its name ends with (1)',
    ),
    (
        'TW007 a display name ending in a superscript digit has no agent number',
        'TW007', '/agents/Coder_²/agent_id', None,
        'agent_id of Coder_² must be the number its name ends with (none)',
    ),
    (
        'TW004 a message with an unknown role',
        'TW004', '/0/role', None,
        "role is 'robot'; expected one of system, user, assistant, tool",
    ),
    (
        'TW411 a message arrives before the result',
        'TW411', '/0', None,
        "tool call 'call_1' (read_file) has no result before message 1",
    ),
]


@pytest.mark.parametrize(("description", "rule", "pointer", "place", "message"), PINNED,
                         ids=[p[0] for p in PINNED])
def test_message_and_pointer(description: str, rule: str, pointer: str | None,
                             place: tuple[int, int] | None, message: str) -> None:
    found = [(f.pointer, None if f.line is None else (f.line, f.column), f.message)
             for f in run_case(vector(description)).findings if f.rule == rule]
    assert found == [(pointer, place, message)]
