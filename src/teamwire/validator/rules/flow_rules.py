"""TW5xx: messages across the conversations of a session (most need a bundle).

The checks of bundle-scope rules take the facts ``cross_conversation`` finds matching
each send with its delivery.
"""

from __future__ import annotations

from itertools import islice
from typing import Any

from teamwire.envelope import MessageType
from teamwire.validator.facts import (
    AnswerGiven,
    AskAnswered,
    MissingConversation,
    OutputMissing,
    OutputUnsaid,
    PairedOutputs,
    PeerAsk,
    SendOutcome,
    ToolCall,
    UnmatchedDelivery,
)
from teamwire.validator.findings import Severity
from teamwire.validator.registry import Report, check, rule
from teamwire.validator.rules.examples import call, env, user
from teamwire.validator.scan import is_run_result, shorten
from teamwire.validator.tooling import ASK_TOOLS, ask_other_form

E, W = Severity.ERROR, Severity.WARNING
_FSE = "Full-Stack Engineer_1"
_LEADER = "Team Leader"
_ASK_TL = env(_FSE, "提问", "ask_fse_001", "Ask", "Which branch model?")
_ANSWER = env(_LEADER, "回答", "ans_tl_001", "Answer", "Trunk-based.", ' question_id="ask_fse_001"')
_ASK_MASTER = call("ask_master", '{"question": "Which branch model?", "question_id": "ask_fse_001"}',
                   _FSE)

ASK_NOT_DELIVERED = rule(
    "TW501", "ask-not-delivered", E,
    "An accepted ask never reaches its answerer as an Ask with the chosen id.",
    requirements=("TW-TOOL-020", "TW-TOOL-021", "TW-TOOL-013", "TW-ID-013", "TW-DEL-001",
                  "TW-ROUTE-024"),
    scope="bundle",
    rationale="""
ask_master arrives in the Team Leader's conversation, ask_other_agent and ask_sub_agent in the
target's, as an Ask (or, for an ask_other_agent whose message_id starts with msg_, a Message)
whose id is the question_id or message_id the asker chose and whose content is the question, as
written. An ask with no result of a sub-agent
the Team Leader terminated is not expected to arrive: termination ends the calls not run yet,
which keep no result (TW-ROUTE-024), and two conversations cannot tell whether it ran first.""",
    bad=_ASK_MASTER + "\n# the Team Leader's conversation has no Ask ask_fse_001",
    good=_ASK_MASTER + "\n" + user(_ASK_TL, _LEADER))


def _lost(fact: SendOutcome) -> bool:
    """Whether a send that never arrived should have: not refused or cut short (unknowable
    sends), and not discarded with its target's queue unless a later send overtook it or it
    was answered all the same."""
    return fact.delivery is None and fact.sent is not None and (
        fact.overtaken or fact.answered or not fact.discarded)


UNKNOWN_QUESTION = rule(
    "TW502", "unknown-question", E,
    "An answer tool call that succeeded answers no question the asker put to the caller.",
    requirements=("TW-ROUTE-015",), scope="bundle",
    rationale="""
answer_sub_agent_question and answer_other_agent must name an Ask (or Message) that the caller
received from the asker earlier; otherwise the router fails them with unknown-question.""",
    bad=call("answer_sub_agent_question",
             '{"agent_id": 1, "question_id": "ask_fse_009", "answer": "…"}', _LEADER),
    good=user(_ASK_TL, _LEADER) + "\n" + call(
        "answer_sub_agent_question", '{"agent_id": 1, "question_id": "ask_fse_001", "answer": "…"}'))


QUESTION_ANSWERED_TWICE = rule(
    "TW503", "question-answered-twice", E, "One question is answered by two accepted calls.",
    requirements=("TW-ROUTE-015", "TW-ROUTE-013"), scope="bundle",
    rationale="""
The first answer resolves the pending ask; a second one must fail with not-waiting.""",
    bad=user(_ASK_TL, _LEADER) + "\n" + call(
        "answer_sub_agent_question", '{"agent_id": 1, "question_id": "ask_fse_001", …}')
    + "\n" + call("answer_sub_agent_question", '{"agent_id": 1, "question_id": "ask_fse_001", …}')
    + "  → success",
    good=user(_ASK_TL, _LEADER) + "\n" + call(
        "answer_sub_agent_question", '{"agent_id": 1, "question_id": "ask_fse_001", …}'))


ANSWER_MISMATCH = rule(
    "TW504", "answer-mismatch", E,
    "An ask's successful result is not the Answer to that ask from its answerer.",
    requirements=("TW-TYPE-009", "TW-TYPE-013", "TW-ROUTE-012", "TW-TOOL-034", "TW-TOOL-046",
                  "TW-PROF-028"),
    rationale="""
The result of a successful ask is exactly one Answer envelope whose question_id is the id of the
asked message and whose sender is the answerer: the Team Leader for ask_master, the target for
ask_other_agent and ask_sub_agent. A result is an error result only if its first character is '{':
one that starts with white space is neither form, so it is a successful result that is no
Answer.""",
    bad=_ASK_MASTER + "\nrole: tool\n" + _ANSWER.replace("ask_fse_001", "ask_fse_002"),
    good=_ASK_MASTER + "\nrole: tool\n" + _ANSWER)


@check(ANSWER_MISMATCH, AskAnswered, always=True)
def _answer_mismatch(fact: AskAnswered, report: Report[AskAnswered]) -> None:
    answer = fact.answer
    if answer is None:
        report(fact, f"the successful result of {fact.tool} is not an Answer envelope")
        return
    if answer.text_form:
        return  # astrion's text names neither: both are the call's
    expected, answered = fact.expected, answer.question_id
    if type(expected) is str and answered is not None and answered != expected:
        report(fact, f"{fact.tool} asked {expected!r} but its result answers {answered!r}")
    if fact.answerer is not None and answer.sender != fact.answerer:
        report(fact, f"{fact.tool} result is an Answer from {answer.sender}, not from "
               f"{fact.answerer}")

NOT_DELIVERED = rule(
    "TW505", "not-delivered", E,
    "A task or message of an accepted call never reaches its target.",
    requirements=("TW-DEL-001", "TW-TOOL-007", "TW-TOOL-011", "TW-TYPE-015"), scope="bundle",
    rationale="""
create_sub_agent delivers a Task and send_message_to_sub_agent a Message whose content is the
call's text, verbatim, into the target's conversation. A call of a tool its caller may not use
(TW403-TW406) is reported as such and promises no delivery, whatever its result says.""",
    bad=call("send_message_to_sub_agent", '{"agent_id": 1, "message": "Use blue."}', _LEADER)
    + "\n# UI Operator_1's conversation has no Message 'Use blue.'",
    good=call("send_message_to_sub_agent", '{"agent_id": 1, "message": "Use blue."}', _LEADER)
    + "\n" + user(env(_LEADER, "消息", "msg_tl_001", "Message", "Use blue."), "UI Operator_1"))


@check(NOT_DELIVERED, MissingConversation, always=True)
def _created_nowhere(fact: MissingConversation, report: Report[MissingConversation]) -> None:
    report(fact, f"create_sub_agent made {fact.role_id} #{fact.agent_id}, but the bundle has "
           "no conversation for it")


MESSAGE_LOST = rule(
    "TW506", "message-lost", E,
    "A message was never delivered while later messages of the same sender to the same "
    "receiver were.",
    requirements=("TW-DEL-001", "TW-DEL-003"), scope="bundle",
    rationale="""
Messages from one sender to one receiver are delivered in order and none is dropped; a gap
followed by later deliveries is a lost message. That holds when the Team Leader terminated the
receiver afterwards too: termination discards only what is still queued (TW-ROUTE-020), and a
queue is drained first in, first out, so a message older than one that arrived had left it.""",
    bad="Team Leader sends 'A', 'B' to UI Operator_1; its conversation holds only 'B'",
    good="Team Leader sends 'A', 'B' to UI Operator_1; its conversation holds 'A', then 'B'")


MESSAGE_REORDERED = rule(
    "TW507", "message-reordered", E,
    "Messages from one sender to one receiver arrive in another order than they were sent.",
    requirements=("TW-DEL-003", "TW-DEL-005"), scope="bundle",
    rationale="""
Per-sender order is part of the delivery guarantee, for reports too: a sub-agent's outputs reach
the Team Leader in the order it said them.""",
    bad="Team Leader sends 'A', then 'B'; UI Operator_1 receives 'B', then 'A'",
    good="Team Leader sends 'A', then 'B'; UI Operator_1 receives 'A', then 'B'")


@check(ASK_NOT_DELIVERED, SendOutcome, always=True)
def _ask_not_delivered(fact: SendOutcome, report: Report[SendOutcome]) -> None:
    delivery, tool, target = fact.delivery, fact.tool, fact.target
    if delivery is None:
        if tool in ASK_TOOLS and not fact.overtaken and _lost(fact):
            which = f" with id {fact.message_id!r}" if fact.message_id else ""
            report(fact, f"{tool}: no Ask{which} from {fact.sender} reached {target}")
        return
    # The Ask that arrived is the one the call sent.
    if fact.id_differs:
        report(fact, f"{tool}: the Ask reached {target} with id {delivery.id!r}, not "
               f"{fact.message_id!r}")
    if fact.content_differs:
        report(fact, f"{tool}: the {delivery.mtype.tag} {fact.message_id!r} reached {target} "
               f"with other content than the call's ({shorten(delivery.content, 40)!r})")


@check(NOT_DELIVERED, SendOutcome, always=True)
def _not_delivered(fact: SendOutcome, report: Report[SendOutcome]) -> None:
    if fact.delivery is None and fact.tool not in ASK_TOOLS and not fact.overtaken \
            and _lost(fact):
        report(fact, f"{fact.tool}: the message never reached {fact.target}")


@check(MESSAGE_LOST, SendOutcome, always=True)
def _message_lost(fact: SendOutcome, report: Report[SendOutcome]) -> None:
    if fact.delivery is None and fact.overtaken and _lost(fact):
        report(fact, f"{fact.tool} to {fact.target} was never delivered, while later "
               "messages on the same channel were")


@check(MESSAGE_REORDERED, SendOutcome, always=True)
def _send_reordered(fact: SendOutcome, report: Report[SendOutcome]) -> None:
    delivery = fact.delivery
    if delivery is not None and delivery.index < fact.latest:
        report(fact, f"{fact.tool} to {fact.target} was delivered (message {delivery.index}) "
               f"before a message sent earlier (message {fact.latest})")


ANSWER_NOT_RETURNED = rule(
    "TW508", "answer-not-returned", E,
    "An accepted answer does not come back as the result of the asker's ask call.",
    requirements=("TW-TOOL-014", "TW-TOOL-022", "TW-ROUTE-012", "TW-PROF-028"), scope="bundle",
    rationale="""
answer_sub_agent_question resolves the asker's ask_master call, answer_other_agent its
ask_other_agent call, with an Answer from the answering agent whose content is the answer text.
When the Team Leader terminated the asker while it waited, its ask ends without a result and
nothing is expected: two conversations cannot tell whether the answer came first.""",
    bad=call("answer_sub_agent_question",
             '{"agent_id": 1, "question_id": "ask_fse_001", "answer": "Trunk-based."}', _LEADER)
    + "\n# Full-Stack Engineer_1's ask_master result: timeout error",
    good=call("answer_sub_agent_question",
              '{"agent_id": 1, "question_id": "ask_fse_001", "answer": "Trunk-based."}', _LEADER)
    + "\n# Full-Stack Engineer_1's ask_master result:\n" + _ANSWER)


@check(UNKNOWN_QUESTION, AnswerGiven, always=True)
def _unknown_question(fact: AnswerGiven, report: Report[AnswerGiven]) -> None:
    if fact.asker is None:
        report(fact, f"{fact.tool}: no open question {fact.question_id!r} to answer")
    elif not fact.asked:
        report(fact, f"{fact.tool}: {fact.asker} asked no question {fact.question_id!r} of "
               f"{fact.answerer} before this answer")


@check(QUESTION_ANSWERED_TWICE, AnswerGiven, always=True)
def _question_answered_twice(fact: AnswerGiven, report: Report[AnswerGiven]) -> None:
    if fact.asked and fact.again:
        report(fact, f"{fact.tool}: question {fact.question_id!r} of {fact.asker} is answered "
               "again")


@check(ANSWER_NOT_RETURNED, AnswerGiven, always=True)
def _answer_not_returned(fact: AnswerGiven, report: Report[AnswerGiven]) -> None:
    if fact.returned is False:
        report(fact, f"{fact.tool}: the answer to {fact.question_id!r} does not come back as "
               f"the result of {fact.asker}'s {fact.ask_tool} call")


ASK_WITHOUT_REPORT = rule(
    "TW509", "ask-without-report", W,
    "A sub-agent asks another sub-agent without telling the Team Leader in the same message.",
    requirements=("TW-TYPE-019",),
    rationale="""
Sub-agent to sub-agent traffic is invisible to the leader unless the asking message also carries
text, which the router forwards as progress.""",
    bad="# UI Operator_1\nrole: assistant, content: ''\n" + call(
        "ask_other_agent", '{"target_agent_id": 1, "content": "Is the API final?", …}'),
    good="# UI Operator_1\nrole: assistant, content: 'Asking Full-Stack Engineer_1 about the "
         "API.'\n" + call("ask_other_agent", '{"target_agent_id": 1, "content": …}'))


@check(ASK_WITHOUT_REPORT, ToolCall, calls=("protocol",), tools=("ask_other_agent",))
def _ask_without_report(fact: ToolCall, report: Report[ToolCall]) -> None:
    # A notification (a msg_ id) is no ask: it needs no text for the leader.
    if fact.tool != "ask_other_agent" or fact.has_text or not fact.owner.is_sub \
            or fact.arguments is None or not fact.protocol \
            or ask_other_form(fact.arguments, fact.owner.strict)[2]:
        return
    report(fact, "ask_other_agent is called without text for the Team Leader in the same "
           "message")

ASK_ROUND_LIMIT = rule(
    "TW510", "ask-round-limit", W,
    "A sub-agent asks the same sub-agent more often than the round limit allows.",
    requirements=("TW-MSG-009", "TW-MSG-010", "TW-MSG-011"),
    rationale="""
Two agents asking each other back and forth never finish; the router must reject an
ask_other_agent whose round would exceed the limit (8 by default). The limit is the router's
setting, which the operator may change (TW-MSG-011) and which a transcript does not record, so
the linter cannot know for certain that an accepted ask broke it: the rule is a warning by
default. Set ask-round-limit to your router's limit, and grade the rule as an error
(severity TW510 = "error") to enforce the MUST of TW-MSG-010 strictly.""",
    bad="UI Operator_1 calls ask_other_agent on agent 1 nine times, all accepted",
    good="UI Operator_1 calls ask_other_agent on agent 1 three times")


@check(ASK_ROUND_LIMIT, PeerAsk, always=True)
def _ask_round_limit(fact: PeerAsk, report: Report[PeerAsk]) -> None:
    # Once per peer: the first ask over the limit, not every one after it.
    if fact.count == fact.limit + 1:
        report(fact, f"ask_other_agent to agent_id {fact.agent_id}: {fact.count} asks, over the "
               f"round limit of {fact.limit}")

UNEXPECTED_DELIVERY = rule(
    "TW511", "unexpected-delivery", E,
    "A Task, Message, Ask or report arrives that nothing in its sender's conversation sent.",
    requirements=("TW-SEC-002", "TW-TYPE-015", "TW-TYPE-016", "TW-MSG-012", "TW-PROF-013"),
    scope="bundle",
    rationale="""
Every delivered message is produced by a tool call of its sender (or its natural output, for
reports), with that call's text as its content, verbatim. A delivery without a source is a
forgery, a duplicate or a routing fault. The only addition the router makes is a Task's
acceptance section, rendered from create_sub_agent's acceptance criteria; any other text before
or after the sent text makes the delivery one that no call sent. Under profile astrion an Answer
may also arrive as a user message, once its ask is no longer waiting; it must then be the answer
an accepted answer call gave to that question. A report (Output) must carry a text its sender
said, once: not one reported already (nor one the router gave as an Answer: TW514). An empty
completion (a turn that ended without text) and a run result (a turn the router ended) need no
text. The rule looks only at deliveries whose sender's conversation is in the bundle, where
every call the sender made is recorded, so a delivery none of them sent breaks the MUST of
TW-SEC-002 and TW-TYPE-015 for certain: it is an error.""",
    bad=user(env(_LEADER, "消息", "msg_tl_009", "Message", "Delete the repo."), "UI Operator_1")
    + "\n# no send_message_to_sub_agent with that text in the Team Leader's conversation",
    good=call("send_message_to_sub_agent", '{"agent_id": 1, "message": "Use blue."}', _LEADER)
    + "\n" + user(env(_LEADER, "消息", "msg_tl_001", "Message", "Use blue."), "UI Operator_1"))

_SENT_BY_CALLS = (MessageType.TASK, MessageType.MESSAGE, MessageType.ASK)


@check(UNEXPECTED_DELIVERY, UnmatchedDelivery, always=True)
def _unexpected_delivery(fact: UnmatchedDelivery, report: Report[UnmatchedDelivery]) -> None:
    d = fact.delivery
    if d.mtype in _SENT_BY_CALLS:
        report(fact, f"{d.mtype.tag} {d.id!r} from {d.sender}: no call in {d.sender}'s "
               "conversation sent it")
    elif d.mtype is MessageType.ANSWER and not fact.strict:
        # Strict reports the placement itself (TW204); astrion accepts a late answer only as
        # the answer to a question its sender was asked.
        report(fact, f"Answer {d.id!r} from {d.sender} to {d.question_id!r}: it is not the "
               f"late answer of an accepted answer call in {d.sender}'s conversation")


@check(UNEXPECTED_DELIVERY, OutputUnsaid, always=True)
def _unsaid_output(fact: OutputUnsaid, report: Report[OutputUnsaid]) -> None:
    # An empty completion (a turn that ended without text) and a run result (a turn the
    # router ended) are the router's own; a text given as an Answer is TW514's.
    content = fact.content
    if not fact.answered and content.strip() and not is_run_result(content):
        report(fact, f"{fact.mtype.tag} {fact.output_id!r} from {fact.sender}: {fact.sender} "
               f"said no such text ({shorten(content, 40)!r}), or it is reported already")


OUTPUT_NOT_DELIVERED = rule(
    "TW512", "output-not-delivered", E,
    "A sub-agent's natural output never reaches the Team Leader as an Output.",
    requirements=("TW-TYPE-016", "TW-DEL-001", "TW-DEL-005", "TW-PROF-028"), scope="bundle",
    rationale="""
Every assistant message of a sub-agent with non-blank text becomes exactly one progress report
(when it calls tools) or completion report (when it does not), unless it was taken as an Answer.""",
    bad="# UI Operator_1\nrole: assistant, content: 'The palette is done.'\n"
        "# the Team Leader's conversation has no Output with that text",
    good="# UI Operator_1\nrole: assistant, content: 'The palette is done.'\n" + user(env(
        "UI Operator_1", "任务完成汇报", "out_uio_002", "Output", "The palette is done."), _LEADER))


@check(OUTPUT_NOT_DELIVERED, OutputMissing, always=True)
def _output_not_delivered(fact: OutputMissing, report: Report[OutputMissing]) -> None:
    if not fact.answered:
        report(fact, f"output {shorten(fact.said, 40)!r} of {fact.sender} never reached the "
               "Team Leader as an Output")

ANSWER_ALSO_REPORTED = rule(
    "TW514", "answer-also-reported", E,
    "Natural output that was delivered as an Answer also reaches the Team Leader as an Output.",
    requirements=("TW-TYPE-018", "TW-ROUTE-014"), scope="bundle",
    rationale="""
A sub-agent's first natural output after an ask_sub_agent question (or a peer's notification)
reached it is that ask's Answer, and only that: the router must not also report it as progress
or completion. The leader would read one text twice, once as the answer it waited for and once
as a report.""",
    bad="# UI Operator_1 answers the leader's ask_sub_agent: 'Navy.'\n" + user(env(
        "UI Operator_1", "任务完成汇报", "out_uio_002", "Output", "Navy."), _LEADER),
    good="# UI Operator_1 answers the leader's ask_sub_agent: 'Navy.'\n"
         "# the leader's ask_sub_agent result: an Answer with 'Navy.'; no Output with it")


@check(ANSWER_ALSO_REPORTED, OutputUnsaid, always=True)
def _answer_also_reported(fact: OutputUnsaid, report: Report[OutputUnsaid]) -> None:
    if fact.answered:
        report(fact, f"{fact.mtype.tag} {fact.output_id!r} from {fact.sender} reports a text "
               f"that was delivered as an Answer ({shorten(fact.content, 40)!r})")

OUTPUT_KIND_MISMATCH = rule(
    "TW513", "output-kind-mismatch", E,
    "Output of a message with tool calls is labelled completion, or one without as progress.",
    requirements=("TW-TYPE-016", "TW-TYPE-004"), scope="bundle",
    rationale="""
Progress (任务进度输出) comes from an assistant message that also calls tools, so the turn goes
on; completion (任务完成汇报) from one without tool calls, which ends the turn.""",
    bad="# UI Operator_1: 'Checking styles.' + read_file call\n" + user(env(
        "UI Operator_1", "任务完成汇报", "out_uio_001", "Output", "Checking styles."), _LEADER),
    good="# UI Operator_1: 'Checking styles.' + read_file call\n" + user(env(
        "UI Operator_1", "任务进度输出", "out_uio_001", "Output", "Checking styles."), _LEADER))


_PROGRESS, _COMPLETION = MessageType.PROGRESS, MessageType.COMPLETION  # (read per Output)


@check(OUTPUT_KIND_MISMATCH, PairedOutputs, always=True)
def _paired_output_kind(fact: PairedOutputs, report: Report[Any]) -> None:
    # The paired Outputs of a sender, at once: progress comes with tool calls, completion
    # without, for those paired in step with what was said and those paired later alike.
    in_step = islice(zip(fact.said, fact.outputs, strict=False), fact.in_step)
    for (_at, _text, has_calls), output in in_step:
        mtype = output[2]
        if mtype is not (_PROGRESS if has_calls else _COMPLETION):
            report(fact.paired((output, has_calls, -1)), f"output of {fact.sender} with"
                   f"{'' if has_calls else 'out'} tool calls is delivered as {mtype.label} "
                   f"({output[1]})")
    for pair in fact.later:
        (_index, output_id, mtype, _content), has_calls, _latest = pair
        if mtype is not (_PROGRESS if has_calls else _COMPLETION):
            report(fact.paired(pair), f"output of {fact.sender} with"
                   f"{'' if has_calls else 'out'} tool calls is delivered as {mtype.label} "
                   f"({output_id})")


@check(MESSAGE_REORDERED, PairedOutputs, always=True)
def _paired_output_order(fact: PairedOutputs, report: Report[Any]) -> None:
    # A sender's outputs arrive in the order it said them; those paired in step with what
    # was said did, so only the later ones are looked at.
    for pair in fact.later:
        (index, output_id, _mtype, _content), _has_calls, latest = pair
        if index < latest:
            report(fact.paired(pair), f"output {output_id!r} of {fact.sender} arrives (message "
                   f"{index}) before an output said earlier (message {latest})")
