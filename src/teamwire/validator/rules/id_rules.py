"""TW3xx: message ids across a conversation and a session."""

from __future__ import annotations

import re

from teamwire.envelope import MessageType, Profile, id_problem
from teamwire.envelope.ids import ASTRION_ASK_ID, ASTRION_ID
from teamwire.validator.facts import EnvelopeId, IdRepeated, IdShared, ToolCall
from teamwire.validator.findings import Severity
from teamwire.validator.registry import Report, check, rule
from teamwire.validator.rules.examples import call, env, user
from teamwire.validator.scan import id_offset, shorten
from teamwire.validator.tooling import ASK_TOOLS, ask_other_form

E, W = Severity.ERROR, Severity.WARNING
_OUT1 = env("UI Operator_1", "任务进度输出", "out_uio_001", "Output", "Reviewing the styles.")
_OUT2 = env("UI Operator_1", "任务完成汇报", "out_uio_002", "Output", "Done.")

ID_REUSED = rule(
    "TW301", "id-reused", E, "Two different messages of the session share one id.",
    requirements=("TW-ID-010", "TW-ID-011", "TW-PROF-012"),
    rationale="""
Ids are unique within a session: answers, deduplication and logs refer to messages by id. In
profile astrion an Answer may reuse the id of the question it answers.""",
    bad=user(_OUT1, "Team Leader") + "\n" + user(_OUT2.replace("out_uio_002", "out_uio_001"),
                                                 "Team Leader"),
    good=user(_OUT1, "Team Leader") + "\n" + user(_OUT2, "Team Leader"))


@check(ID_REUSED, IdRepeated, always=True)
def _id_reused(fact: IdRepeated, report: Report[IdRepeated]) -> None:
    if not fact.same:
        report(fact, f"id {fact.message_id!r} is already used by another message (message "
               f"{fact.first})", id_offset(fact.text))


@check(ID_REUSED, IdShared, always=True)
def _id_reused_elsewhere(fact: IdShared, report: Report[IdShared]) -> None:
    if not fact.same:
        report(fact, f"id {fact.message_id!r} is already used by another message in the "
               f"conversation of {fact.owner} (message {fact.first})")


DUPLICATE_DELIVERY = rule(
    "TW302", "duplicate-delivery", E, "One message is delivered twice into one conversation.",
    requirements=("TW-DEL-002", "TW-DEL-004", "TW-ID-011"),
    rationale="""
The router delivers each message to its receiver exactly once, across restarts included; a
second copy is a duplicate delivery.""",
    bad=user(_OUT1, "Team Leader") + "\n" + user(_OUT1, "Team Leader"),
    good=user(_OUT1, "Team Leader") + "\n" + user(_OUT2, "Team Leader"))


@check(DUPLICATE_DELIVERY, IdRepeated, always=True)
def _duplicate_delivery(fact: IdRepeated, report: Report[IdRepeated]) -> None:
    if fact.same:
        report(fact, f"message {fact.message_id!r} is delivered again (first at message "
               f"{fact.first})", id_offset(fact.text))


MULTIPLE_RECEIVERS = rule(
    "TW303", "multiple-receivers", E, "One message is delivered into two conversations.",
    requirements=("TW-ID-011", "TW-MSG-003"), scope="bundle",
    rationale="""
Every message has exactly one receiver; the same id on envelopes in two conversations means the
message was delivered to an agent it was not addressed to.""",
    bad=user(_OUT1, "Team Leader") + "\n" + user(_OUT1, "Full-Stack Engineer_1"),
    good=user(_OUT1, "Team Leader"))


@check(MULTIPLE_RECEIVERS, IdShared, always=True)
def _multiple_receivers(fact: IdShared, report: Report[IdShared]) -> None:
    if fact.same:
        report(fact, f"message {fact.message_id!r} is delivered to {fact.owner} (message "
               f"{fact.first}) and again here")


AGENT_CHOSEN_ID_SHAPE = rule(
    "TW304", "agent-chosen-id-shape", W,
    "An agent-chosen id (question_id, message_id) does not have the id shape.",
    requirements=("TW-ID-012",),
    rationale="""
Ids that agents choose for their asks become the ids of the delivered messages; they should look
like router ids (ask_fse_003, msg_uio_002) so that they never collide with other kinds. The
shape, prefix included, is a recommendation for agent-chosen ids, hence a warning; the syntax
every id must have (TW-ID-001) is checked with the tool's arguments. Checked in ask tool calls
and in the Ask and sub-agent Message envelopes that carry such ids.""",
    bad=call("ask_master", '{"question": "Which branch model?", "question_id": "q1"}'),
    good=call("ask_master", '{"question": "Which branch model?", "question_id": "ask_fse_001"}'))

# (strict, an Ask) → a test passing the ids id_problem finds no problem with: most calls
# choose such an id, and the test spares them id_problem's closer look.
_CHOSEN_OK = {
    (strict, ask): re.compile(("ask" if ask else "msg") + "_[a-z0-9]+_[0-9]{3,}"
                              + ("" if strict else "|" + ASTRION_ID.pattern)
                              + ("|" + ASTRION_ASK_ID.pattern if ask and not strict else "")
                              ).fullmatch
    for strict in (True, False) for ask in (True, False)}
_ARGUMENTS = "/function/arguments"


@check(AGENT_CHOSEN_ID_SHAPE, ToolCall, calls=("protocol",), tools=sorted(ASK_TOOLS))
def _chosen_id_in_call(fact: ToolCall, report: Report[ToolCall]) -> None:
    arguments = fact.arguments
    if arguments is None or not fact.protocol or fact.tool not in ASK_TOOLS:
        return
    strict = fact.owner.strict
    if fact.tool == "ask_other_agent":
        chosen, _text, notice = ask_other_form(arguments, strict)
        mtype = MessageType.MESSAGE if notice else MessageType.ASK
    else:
        chosen, mtype = arguments.get("question_id"), MessageType.ASK
    if type(chosen) is not str or _CHOSEN_OK[strict, mtype is MessageType.ASK](chosen):
        return
    problem = id_problem(chosen, mtype, Profile.STRICT if strict else Profile.ASTRION)
    if problem is not None:
        report(fact, f"{fact.tool}: {problem}", below=_ARGUMENTS)


@check(AGENT_CHOSEN_ID_SHAPE, EnvelopeId, always=True)
def _chosen_id_in_envelope(fact: EnvelopeId, report: Report[EnvelopeId]) -> None:
    # Router-allocated ids of the wrong shape or prefix are TW106's and TW107's, errors.
    if not fact.chosen:
        return
    match = fact.match
    if match is None:
        if fact.strict or not ASTRION_ID.fullmatch(fact.message_id):
            report(fact, f"id {shorten(fact.message_id)!r} is not 'task_NNN' or "
                   "'{prefix}_{abbr}_NNN'", id_offset(fact.text))
        return
    prefix = match.group("prefix") or "task"
    wanted = fact.wanted
    if wanted is not None and prefix != wanted:
        article = "an" if fact.tag[:1] in "AEIOUaeiou" else "a"
        report(fact, f"id {fact.message_id!r} has prefix {prefix + '_'!r}; {article} {fact.tag} "
               f"({fact.label}) takes {wanted + '_'!r}", id_offset(fact.text))

ID_ABBREVIATION_MISMATCH = rule(
    "TW305", "id-abbreviation-mismatch", W,
    "An id's abbreviation is not the sender's role abbreviation.",
    requirements=("TW-ID-006", "TW-ID-003", "TW-ID-012"),
    rationale="""
Ids carry the abbreviation of the sending role (UI Operator → uio, Team Leader → tl), so a
mismatch points at an id that was copied or allocated for someone else.""",
    bad=user(env("UI Operator_1", "任务进度输出", "out_fse_001", "Output", "Working."),
             "Team Leader"),
    good=user(_OUT1, "Team Leader"))


@check(ID_ABBREVIATION_MISMATCH, EnvelopeId, always=True)
def _id_abbreviation_mismatch(fact: EnvelopeId, report: Report[EnvelopeId]) -> None:
    match = fact.match
    if match is None:
        return
    prefix = match.group("prefix") or "task"
    # A wrong prefix is reported as such (TW106, TW304); the task counter has no abbreviation.
    if prefix == "task" or (fact.wanted is not None and prefix != fact.wanted):
        return
    expected, abbr = fact.abbreviation, match.group("abbr")
    if expected is not None and abbr != expected:
        report(fact, f"id {fact.message_id!r} abbreviates the sender {fact.sender} as {abbr!r}; "
               f"expected {expected!r}", fact.text.find("\n") + 6 + len(prefix))
