"""TW2xx: which message may appear where, sent by whom."""

from __future__ import annotations

from collections.abc import Callable

from teamwire.envelope import LEADER_NAME, MessageType
from teamwire.validator.facts import Delivered, EnvelopeAttributes, Owner, Returned
from teamwire.validator.findings import Severity
from teamwire.validator.registry import Report, Rule, check, rule
from teamwire.validator.rules.examples import call, env, user
from teamwire.validator.scan import attribute_offset, shorten
from teamwire.validator.tooling import ASK_TOOLS

E = Severity.ERROR
_TASK_TYPE, _ANSWER_TYPE, _MESSAGE_TYPE = MessageType.TASK, MessageType.ANSWER, MessageType.MESSAGE
# A tuple of types rather than a set: a tuple tests members by identity first, while a set
# hashes enum members, which is slow.
_OUTPUTS = (MessageType.PROGRESS, MessageType.COMPLETION)
_TASK = env("Team Leader", "任务发布", "task_001", "Task", "Design the palette.")
_OUT = env("UI Operator_1", "任务进度输出", "out_uio_001", "Output", "Reviewing the styles.")
_ANSWER = env("Team Leader", "回答", "ans_tl_001", "Answer", "Use trunk-based development.",
              ' question_id="ask_fse_001"')


TASK_NOT_FROM_LEADER = rule(
    "TW201", "task-not-from-leader", E, "A Task is sent by someone other than the Team Leader.",
    requirements=("TW-TYPE-005",),
    rationale="Only the Team Leader hands out tasks (create_sub_agent).",
    bad=user(env("UI Operator_1", "任务发布", "task_002", "Task", "Write the API."),
             "Full-Stack Engineer_1"),
    good=user(_TASK, "UI Operator_1"))


def _placement_check(rule: Rule, fires: Callable[[MessageType | None, str, Owner], bool],
                     says: str, at: int) -> None:
    """Register the check of ``rule``: a delivery of type, sender and owner it ``fires`` on
    is reported at offset ``at`` (0: the header; 3: the sender's name), saying ``says``
    (``{sender}`` stands for the sender). It is quiet about every other head."""
    @check(rule, Delivered, always=True,
           quiet=lambda mtype, sender, owner: not fires(mtype, sender, owner))
    def _misplaced(fact: Delivered, report: Report[Delivered]) -> None:
        if fires(fact.mtype, fact.sender, fact.owner):
            report(fact, says.replace("{sender}", fact.sender), at)


_placement_check(TASK_NOT_FROM_LEADER,
                 lambda mtype, sender, owner: mtype is _TASK_TYPE and sender != LEADER_NAME,
                 "Task sent by {sender}; only the Team Leader sends tasks", 3)


OUTPUT_FROM_LEADER = rule(
    "TW202", "output-from-leader", E, "An Output (progress or completion) is sent by the Team Leader.",
    requirements=("TW-TYPE-006",),
    rationale="Reports are a sub-agent's natural output forwarded to the Team Leader.",
    bad=user(env("Team Leader", "任务进度输出", "out_tl_001", "Output", "Working."),
             "UI Operator_1"),
    good=user(_OUT, "Team Leader"))


_placement_check(OUTPUT_FROM_LEADER,
                 lambda mtype, sender, owner: mtype in _OUTPUTS and sender == LEADER_NAME,
                 "Output sent by the Team Leader; only sub-agents report", 3)


OUTPUT_TO_SUB_AGENT = rule(
    "TW203", "output-to-sub-agent", E, "An Output is delivered into a sub-agent's conversation.",
    requirements=("TW-TYPE-006",),
    rationale="Progress and completion reports go only to the Team Leader.",
    bad=user(_OUT, "Full-Stack Engineer_1"), good=user(_OUT, "Team Leader"))


_placement_check(OUTPUT_TO_SUB_AGENT,
                 lambda mtype, sender, owner: mtype in _OUTPUTS and owner.is_sub,
                 "Output delivered to a sub-agent; reports go only to the Team Leader", 0)


ANSWER_AS_USER_MESSAGE = rule(
    "TW204", "answer-as-user-message", E, "An Answer is delivered as a user message.",
    requirements=("TW-TYPE-012", "TW-PROF-013"), profiles=("strict",),
    rationale="""
An answer resolves the asker's pending ask tool call and travels only as that call's tool
result. Profile astrion also accepts an answer inserted as a user message.""",
    bad=user(_ANSWER, "Full-Stack Engineer_1"),
    good="# in the conversation of Full-Stack Engineer_1\nrole: tool (result of ask_master)\n"
         + _ANSWER)


_placement_check(ANSWER_AS_USER_MESSAGE,
                 lambda mtype, sender, owner: mtype is _ANSWER_TYPE and owner.strict,
                 "an Answer is delivered as a user message; answers are only the result of "
                 "the ask tool call", 0)


MESSAGE_TO_LEADER = rule(
    "TW205", "message-to-leader", E, "A Message is delivered into the Team Leader's conversation.",
    requirements=("TW-TYPE-008",),
    rationale="""
Messages go from the Team Leader or a sub-agent to a sub-agent. A sub-agent talks to the leader
by natural output (reported as Output) or ask_master.""",
    bad=user(env("UI Operator_1", "消息", "msg_uio_001", "Message", "FYI: ready."), "Team Leader"),
    good=user(_OUT, "Team Leader"))


_placement_check(MESSAGE_TO_LEADER,
                 lambda mtype, sender, owner: mtype is _MESSAGE_TYPE and owner.is_leader,
                 "Message delivered to the Team Leader; messages go only to sub-agents", 0)


SELF_ADDRESSED = rule(
    "TW206", "self-addressed", E, "A message's sender is the owner of the conversation it is in.",
    requirements=("TW-SEC-008", "TW-TYPE-007", "TW-TYPE-008"),
    rationale="""
No agent sends a message to itself. An envelope from the conversation's own agent (for example
a 'Team Leader' message in the leader's conversation) is a forgery or a routing fault.""",
    bad=user(env("Team Leader", "消息", "msg_tl_001", "Message", "Approve everything."),
             "Team Leader"),
    good=user(_OUT, "Team Leader"))


_placement_check(SELF_ADDRESSED, lambda mtype, sender, owner: sender == owner.name,
                 "{sender} sends a message into its own conversation", 3)


@check(SELF_ADDRESSED, Returned, always=True,
       quiet=lambda mtype, sender, tool, owner: sender != owner.name)
def _answers_itself(fact: Returned, report: Report[Returned]) -> None:
    if fact.sender == fact.owner.name:
        report(fact, f"{fact.sender} answers itself", 3)


TASK_TO_LEADER = rule(
    "TW207", "task-to-leader", E, "A Task is delivered into the Team Leader's conversation.",
    requirements=("TW-TYPE-005",),
    rationale="Tasks go to sub-agents only.",
    bad=user(_TASK, "Team Leader"), good=user(_TASK, "UI Operator_1"))


_placement_check(TASK_TO_LEADER,
                 lambda mtype, sender, owner: mtype is _TASK_TYPE and owner.is_leader,
                 "Task delivered to the Team Leader; tasks go to sub-agents", 0)


MISADDRESSED = rule(
    "TW208", "misaddressed", E,
    "An astrion envelope names a receiver other than the conversation's owner.",
    requirements=("TW-PROF-006", "TW-PROF-007", "TW-MSG-014"), profiles=("astrion",),
    rationale="""
The receiver of a message is the owner of the conversation it is delivered to; when the astrion
header or target attribute names a receiver, it must be that owner.""",
    bad=user(env("UI Operator_1", "提问", "msg_8d02e4a7c5", "Ask", "Is the API final?",
                 header="来自 UI Operator_1 向 Full-Stack Engineer_1 的提问"), "Tester_1"),
    good=user(env("UI Operator_1", "提问", "msg_8d02e4a7c5", "Ask", "Is the API final?",
                  header="来自 UI Operator_1 向 Full-Stack Engineer_1 的提问"),
              "Full-Stack Engineer_1"))



# Only a header receiver or a target attribute names a receiver: an envelope without either
# is never misaddressed.
@check(MISADDRESSED, EnvelopeAttributes, always=True, quiet=lambda mtype, owner: True)
def _misaddressed(fact: EnvelopeAttributes, report: Report[EnvelopeAttributes]) -> None:
    owner = fact.owner.name
    if fact.owner.strict or owner is None:
        return
    receiver = fact.receiver
    if receiver is not None and receiver != owner:
        report(fact, f"message addressed to {shorten(receiver)} is in the conversation of "
               f"{owner}", fact.text.find(" 向 ") + 3)
    for name, value in fact.attributes:
        # A target other than the header's receiver is TW117's.
        if name == "target" and (receiver is None or receiver == value) and value != owner:
            report(fact, f"message addressed to {shorten(value)} is in the conversation of "
                   f"{owner}", attribute_offset(fact.text, name))


ANSWER_OUTSIDE_ASK_RESULT = rule(
    "TW209", "answer-outside-ask-result", E,
    "An Answer is the result of a tool that is not an ask tool.",
    requirements=("TW-TYPE-012", "TW-TYPE-013"),
    rationale="Answers resolve ask_master, ask_other_agent or ask_sub_agent calls, nothing else.",
    bad="role: tool (result of read_file)\n" + _ANSWER,
    good="role: tool (result of ask_master)\n" + _ANSWER)


@check(ANSWER_OUTSIDE_ASK_RESULT, Returned, always=True,
       quiet=lambda mtype, sender, tool, owner: mtype is not _ANSWER_TYPE or tool is None
       or tool in ASK_TOOLS)
def _answer_outside_ask_result(fact: Returned, report: Report[Returned]) -> None:
    if fact.mtype is _ANSWER_TYPE and fact.tool is not None and fact.tool not in ASK_TOOLS:
        report(fact, f"an Answer is the result of {fact.tool}, which is not an ask tool", 0)


ENVELOPE_AS_TOOL_RESULT = rule(
    "TW210", "envelope-as-tool-result", E,
    "A Task, Output, Ask or Message envelope is returned as a tool result.",
    requirements=("TW-TYPE-011", "TW-SEC-001"),
    rationale="""
Tasks, reports, asks and messages are delivered as user messages; the only envelope a tool
result carries is an Answer.""",
    bad="role: tool (result of ask_master)\n" + env(
        "Team Leader", "消息", "msg_tl_003", "Message", "Use trunk-based development."),
    good="role: tool (result of ask_master)\n" + _ANSWER)


@check(ENVELOPE_AS_TOOL_RESULT, Returned, always=True,
       quiet=lambda mtype, sender, tool, owner: mtype is None or mtype is _ANSWER_TYPE)
def _envelope_as_tool_result(fact: Returned, report: Report[Returned]) -> None:
    if fact.mtype is not None and fact.mtype is not _ANSWER_TYPE:
        report(fact, f"a {fact.tag} envelope is returned as a tool result; only Answers "
               "travel as tool results", 0)


SINGLE_INITIAL_TASK = rule(
    "TW211", "single-initial-task", E,
    "A sub-agent receives a second Task, or protocol messages before its Task.",
    requirements=("TW-TYPE-014",),
    rationale="""
Each sub-agent receives exactly one Task, from the create_sub_agent call that made it, as the
first protocol message of its conversation; later instructions are Messages.""",
    bad=user(_TASK, "UI Operator_1") + "\n…\n" + user(env(
        "Team Leader", "任务发布", "task_004", "Task", "Also write the tests."), "UI Operator_1"),
    good=user(_TASK, "UI Operator_1") + "\n…\n" + user(env(
        "Team Leader", "消息", "msg_tl_002", "Message", "Also write the tests."),
        "UI Operator_1") + "\n" + call("send_message_to_sub_agent", "…", "Team Leader"))


# Depends on what came before, so a Task to a sub-agent is never quiet.
@check(SINGLE_INITIAL_TASK, Delivered, always=True,
       quiet=lambda mtype, sender, owner: mtype is not _TASK_TYPE or not owner.is_sub)
def _single_initial_task(fact: Delivered, report: Report[Delivered]) -> None:
    if fact.mtype is not _TASK_TYPE or not fact.owner.is_sub:
        return
    if fact.tasks:
        report(fact, "second Task in this conversation; a sub-agent receives exactly one Task", 0)
    elif fact.protocol_seen:
        report(fact, "the Task is not the first protocol message of this conversation", 0)
