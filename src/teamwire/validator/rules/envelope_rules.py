"""TW1xx: the envelope text of each protocol message."""

from __future__ import annotations

from teamwire.envelope import ASTRION_COMPLETION_LABEL, LEADER_NAME, MessageType, name_problem
from teamwire.envelope.ids import ASTRION_ID, MESSAGE_ID
from teamwire.envelope.types import ASTRION_SUBTYPES
from teamwire.spec_version import SPEC_VERSION
from teamwire.validator.facts import (
    DisplayName,
    EnvelopeAttributes,
    EnvelopeHead,
    EnvelopeId,
    EnvelopeText,
    Owner,
    Unparsed,
    UserText,
)
from teamwire.validator.findings import Severity
from teamwire.validator.registry import Report, check, rule
from teamwire.validator.rules.examples import env, user
from teamwire.validator.scan import attribute_offset, id_offset, line_start, shorten, unsafe_name_char

E, W = Severity.ERROR, Severity.WARNING
_ANSWER = MessageType.ANSWER


def _quiet_unless_answer(mtype: MessageType | None, owner: Owner) -> bool:
    # The quiet test of TW109's check: an envelope without attributes is reported only when
    # it is an Answer (which then lacks its question_id).
    return mtype is not _ANSWER
_ASK = env("UI Operator_1", "提问", "ask_uio_001", "Ask", "Is the API final?")

ENVELOPE_SYNTAX = rule(
    "TW101", "envelope-syntax", E,
    "A message whose first line is a header does not parse as an envelope.",
    requirements=("TW-ENV-002", "TW-ENV-003", "TW-ENV-004", "TW-ENV-005", "TW-ENV-006",
                  "TW-ENV-007", "TW-ENV-013", "TW-ENV-017", "TW-ENV-026", "TW-ENV-028",
                  "TW-ENV-031", "TW-ENV-032", "TW-ENV-033"),
    rationale="""
A user message (or ask tool result) that starts with '来自 … 的…' presents itself as a protocol
message, so it must be a well-formed envelope. The finding points at the first error, with its
line and column inside the message content, as the reference grammar reports it.""",
    bad=user("来自 UI Operator_1 的提问\nid:ask_uio_001\n\n<UI Operator_1>\n<Ask>\nIs the API "
             "final?\n</Ask>\n</UI Operator_1>"),
    good=user(_ASK))


@check(ENVELOPE_SYNTAX, Unparsed, always=True)
def _envelope_syntax(fact: Unparsed, report: Report[Unparsed]) -> None:
    # A name mismatch and a repeated attribute have rules of their own (TW102, TW103).
    if fact.code not in ("name-mismatch", "duplicate-attribute"):
        report(fact, fact.message)


NAME_MISMATCH = rule(
    "TW102", "name-mismatch", E,
    "Header sender, outer tags, or inner open and close tags differ.",
    requirements=("TW-ENV-014", "TW-ENV-005", "TW-ENV-006"),
    rationale="""
The sender's display name appears three times (header, outer open tag, outer close tag) and the
tag twice; they must be identical code point for code point, or a reader cannot tell who sent
the message or where it ends.""",
    bad=user(env("UI Operator_1", "提问", "ask_uio_001", "Ask", "Is the API final?")
             .replace("</UI Operator_1>", "</UI Operator_2>")),
    good=user(_ASK))


@check(NAME_MISMATCH, Unparsed, always=True)
def _name_mismatch(fact: Unparsed, report: Report[Unparsed]) -> None:
    if fact.code == "name-mismatch":
        report(fact, fact.message)


DUPLICATE_ATTRIBUTE = rule(
    "TW103", "duplicate-attribute", E, "The inner tag carries one attribute twice.",
    requirements=("TW-ENV-015",),
    rationale="Two values for one attribute leave the reader to guess which one counts.",
    bad=user(env("Full-Stack Engineer_1", "回答", "ans_fse_001", "Answer", "Yes.",
                 ' question_id="ask_uio_001" question_id="ask_uio_002"')),
    good=user(env("Full-Stack Engineer_1", "回答", "ans_fse_001", "Answer", "Yes.",
                  ' question_id="ask_uio_001"')))


@check(DUPLICATE_ATTRIBUTE, Unparsed, always=True)
def _duplicate_attribute(fact: Unparsed, report: Report[Unparsed]) -> None:
    if fact.code == "duplicate-attribute":
        report(fact, fact.message)


UNKNOWN_LABEL = rule(
    "TW104", "unknown-label", E, "The header label is not one of the six message types.",
    requirements=("TW-TYPE-002", "TW-VER-006", "TW-TYPE-001"),
    rationale="""
The label names the message type: 任务发布, 任务进度输出, 任务完成汇报, 提问, 消息 or 回答. An
unknown label is invalid rather than ignored, because a new type would change the meaning.""",
    bad=user(env("UI Operator_1", "通知", "msg_uio_001", "Message", "Ready.")),
    good=user(env("UI Operator_1", "消息", "msg_uio_001", "Message", "Ready.")))


@check(UNKNOWN_LABEL, EnvelopeHead, always=True)
def _unknown_label(fact: EnvelopeHead, report: Report[EnvelopeHead]) -> None:
    # The astrion completion label under profile strict is TW114's.
    if fact.known is None and fact.label != ASTRION_COMPLETION_LABEL:
        report(fact, f"unknown label {shorten(fact.label)!r}",
               fact.text.find("\n") - len(fact.label))


TAG_LABEL_MISMATCH = rule(
    "TW105", "tag-label-mismatch", E, "The inner tag is not the tag of the label's type.",
    requirements=("TW-TYPE-003",),
    rationale="""
Label and tag must agree: 任务发布/Task, 任务进度输出 and 任务完成汇报/Output, 提问/Ask,
消息/Message, 回答/Answer.""",
    bad=user(env("Team Leader", "任务发布", "task_001", "Message", "Design the palette.")),
    good=user(env("Team Leader", "任务发布", "task_001", "Task", "Design the palette.")))


@check(TAG_LABEL_MISMATCH, EnvelopeHead, always=True)
def _tag_label_mismatch(fact: EnvelopeHead, report: Report[EnvelopeHead]) -> None:
    if fact.known is not None and fact.tag != fact.known[1]:
        report(fact, f"label {fact.label!r} takes tag <{fact.known[1]}>, not <{fact.tag}>",
               line_start(fact.text, 4) + 1)


ID_PREFIX_MISMATCH = rule(
    "TW106", "id-prefix-mismatch", E,
    "A router-allocated id's prefix is not the prefix of the message type.",
    requirements=("TW-ID-003",),
    rationale="""
Ids the router allocates (tasks, reports, answers, the leader's messages) start with the prefix
of their type: task_, out_, msg_ or ans_, so that a reader can tell from an id alone what it
names. Ids chosen by agents (asks, sub-agents' messages) only should have that shape; a wrong
prefix there is reported by TW304, a warning.""",
    bad=user(env("UI Operator_1", "任务进度输出", "ask_uio_001", "Output", "Working."),
             "Team Leader"),
    good=user(env("UI Operator_1", "任务进度输出", "out_uio_001", "Output", "Working."),
              "Team Leader"))


def _article(word: str) -> str:
    return "an" if word[:1] in "AEIOUaeiou" else "a"


@check(ID_PREFIX_MISMATCH, EnvelopeId, always=True)
def _id_prefix_mismatch(fact: EnvelopeId, report: Report[EnvelopeId]) -> None:
    # An agent-chosen id with a wrong prefix is TW304's, a warning.
    match = fact.match
    if match is None or fact.chosen or fact.wanted is None:
        return
    prefix = match.group("prefix") or "task"
    if prefix != fact.wanted:
        report(fact, f"id {fact.message_id!r} has prefix {prefix + '_'!r}; "
               f"{_article(fact.tag)} {fact.tag} ({fact.label}) takes {fact.wanted + '_'!r}",
               id_offset(fact.text))


ID_SHAPE = rule(
    "TW107", "id-shape", E,
    "A router-allocated id is not 'task_NNN' or '{prefix}_{abbr}_NNN'.",
    requirements=("TW-ID-003", "TW-ID-005", "TW-PROF-011", "TW-PROF-027"),
    rationale="""
The router allocates the ids of tasks, reports, answers and the leader's messages as task_NNN
or prefix_abbreviation_NNN (three or more digits). Profile astrion also accepts msg_ followed by
ten lowercase hex digits for every type.""",
    bad=user(env("Team Leader", "任务发布", "T-1", "Task", "Design the palette.")),
    good=user(env("Team Leader", "任务发布", "task_001", "Task", "Design the palette.")))


@check(ID_SHAPE, EnvelopeId, always=True)
def _id_shape(fact: EnvelopeId, report: Report[EnvelopeId]) -> None:
    # An agent-chosen id of another shape is TW304's, a warning.
    if fact.match is not None or fact.chosen \
            or (not fact.strict and ASTRION_ID.fullmatch(fact.message_id)):
        return
    report(fact, f"id {shorten(fact.message_id)!r} is not 'task_NNN' or '{{prefix}}_{{abbr}}_NNN'",
           id_offset(fact.text))


ID_ATTRIBUTE = rule(
    "TW108", "id-attribute", E, "The id is written as an attribute of the inner tag.",
    requirements=("TW-ENV-021", "TW-ENV-023"),
    rationale="The id belongs on the id line only; an id attribute is a second, competing id.",
    bad=user(env("UI Operator_1", "提问", "ask_uio_001", "Ask", "Is the API final?",
                 ' id="ask_uio_001"')),
    good=user(_ASK))


MISSING_QUESTION_ID = rule(
    "TW109", "missing-question-id", E, "An Answer has no question_id attribute.",
    requirements=("TW-ENV-019",),
    rationale="An answer names the question it answers; without question_id it matches nothing.",
    bad=env("Full-Stack Engineer_1", "回答", "ans_fse_001", "Answer", "Yes, see api.md."),
    good=env("Full-Stack Engineer_1", "回答", "ans_fse_001", "Answer", "Yes, see api.md.",
             ' question_id="ask_uio_001"'))


MISPLACED_QUESTION_ID = rule(
    "TW110", "misplaced-question-id", E, "A tag other than Answer carries question_id.",
    requirements=("TW-ENV-020", "TW-PROF-009"), profiles=("strict",),
    rationale="""
Only an Answer refers to a question. Profile astrion ignores question_id on other tags; profile
strict treats it as invalid.""",
    bad=user(env("UI Operator_1", "提问", "ask_uio_001", "Ask", "Is the API final?",
                 ' question_id="ask_uio_001"')),
    good=user(_ASK))


UNKNOWN_ATTRIBUTE = rule(
    "TW111", "unknown-attribute", E, "The inner tag carries an attribute the spec does not define.",
    requirements=("TW-ENV-022", "TW-VER-005"), profiles=("strict",),
    rationale="""
Readers ignore unknown attributes, but a writer of profile strict writes no attribute other than
question_id (a MUST NOT, so an error since spec 1.1; 1.0's linter made it a warning). An
envelope in a transcript was written by a router, so the attribute is that writer's fault.
Profile astrion's target and subtype are reported here under strict.""",
    bad=user(env("UI Operator_1", "提问", "ask_uio_001", "Ask", "Is the API final?",
                 ' priority="high"')),
    good=user(_ASK))


# The attributes spec 1.0 names: question_id, and id (reported as TW108). Profile astrion's
# target and subtype are the dialect's own (TW116, TW117, TW208).
_SPEC_ATTRIBUTES = frozenset({"question_id", "id"})


INVALID_DISPLAY_NAME = rule(
    "TW112", "invalid-display-name", E,
    "A display name is not 'Team Leader' or '{Role Name}_{n}', or uses the reserved name.",
    requirements=("TW-NAME-002", "TW-NAME-003", "TW-NAME-005", "TW-NAME-006", "TW-NAME-012",
                  "TW-SEC-007"),
    rationale="""
Display names are 'Team Leader' or a role name, '_' and an instance number from 1 without leading
zeros; no leading or trailing white space, no ' 的' or ' 向 ', and 'Team Leader' is never a role
name. An envelope from an invalid name is invalid.""",
    bad=user(env("UI Operator_01", "提问", "ask_uio_001", "Ask", "Is the API final?")),
    good=user(_ASK))


@check(INVALID_DISPLAY_NAME, DisplayName, always=True)
def _invalid_display_name(fact: DisplayName, report: Report[DisplayName]) -> None:
    # A name holding an unsafe character is TW602's.
    if unsafe_name_char(fact.name) is None:
        problem = name_problem(fact.name)
        if problem is not None:
            report(fact, f"{problem}: {shorten(fact.name)!r}", fact.at)


LEGACY_NOTICE_PREFIX = rule(
    "TW113", "legacy-notice-prefix", E, "A user message starts with the retired '[系统通知|' prefix.",
    requirements=("TW-SEC-010", "TW-SEC-011"),
    rationale="""
Earlier designs marked inserted messages with '[系统通知|…]'. A model may take text carrying it
for a system instruction, so it must not reappear; protocol messages use the envelope header.""",
    bad=user("[系统通知|任务完成] UI Operator_1 finished the palette."),
    good=user(env("UI Operator_1", "任务完成汇报", "out_uio_002", "Output",
                  "The palette is done.")))


@check(LEGACY_NOTICE_PREFIX, UserText, prefixes=("[系统通知",))
def _legacy_notice_prefix(fact: UserText, report: Report[UserText]) -> None:
    if fact.text.startswith("[系统通知"):
        report(fact, "message uses the retired '[系统通知|…]' prefix instead of an envelope", 0)


ASTRION_DIALECT = rule(
    "TW114", "astrion-dialect", E,
    "An astrion-only form (receiver header, label 任务结束汇报) under profile strict.",
    requirements=("TW-PROF-005", "TW-TYPE-002", "TW-PROF-002"), profiles=("strict",),
    rationale="""
The header form '来自 A 向 B 的…' and the completion label 任务结束汇报 belong to the astrion
dialect. They are well-formed but invalid in profile strict; lint with --profile astrion to
accept transcripts of that implementation.""",
    bad=user(env("UI Operator_1", "任务结束汇报", "out_uio_002", "Output", "Done.")),
    good=user(env("UI Operator_1", "任务完成汇报", "out_uio_002", "Output", "Done.")))


TRAILING_NEWLINE = rule(
    "TW115", "trailing-newline", E, "The envelope text ends with a line feed.",
    requirements=("TW-ENV-001", "TW-ENV-012", "TW-TYPE-013"),
    rationale="""
Readers accept one trailing LF, but writers render the canonical text, which ends with the
outer close tag; an ask's result must be exactly the canonical text.""",
    bad=user(_ASK) + "⏎   <- a line feed after the outer close tag", good=user(_ASK))


@check(TRAILING_NEWLINE, EnvelopeText, suffixes=("\n",))
def _trailing_newline(fact: EnvelopeText, report: Report[EnvelopeText]) -> None:
    if fact.text[-1:] == "\n":
        report(fact, "envelope ends with a line feed; the canonical text has none",
               len(fact.text) - 1)


SUBTYPE_MISMATCH = rule(
    "TW116", "subtype-mismatch", E, "An astrion subtype attribute contradicts the message type.",
    requirements=("TW-PROF-008",), profiles=("astrion",),
    rationale="""
In profile astrion, subtype progress_output goes with PROGRESS, completion_report with
COMPLETION, ask_master with an ASK to the Team Leader and ask_other with an ASK to a
sub-agent.""",
    bad=user(env("UI Operator_1", "任务进度输出", "msg_3f9a0c11be", "Output", "Working.",
                 ' subtype="completion_report"')),
    good=user(env("UI Operator_1", "任务进度输出", "msg_3f9a0c11be", "Output", "Working.",
                  ' subtype="progress_output"')))


RECEIVER_CONFLICT = rule(
    "TW117", "receiver-conflict", E,
    "An astrion header names a receiver that differs from the target attribute.",
    requirements=("TW-PROF-007", "TW-PROF-006"), profiles=("astrion",),
    rationale="An envelope addressed to two different receivers is invalid.",
    bad=user(env("UI Operator_1", "提问", "msg_8d02e4a7c5", "Ask", "Is the API final?",
                 ' target="Full-Stack Engineer_2"',
                 header="来自 UI Operator_1 向 Full-Stack Engineer_1 的提问")),
    good=user(env("UI Operator_1", "提问", "msg_8d02e4a7c5", "Ask", "Is the API final?",
                  ' target="Full-Stack Engineer_1"',
                  header="来自 UI Operator_1 向 Full-Stack Engineer_1 的提问")))


INVALID_QUESTION_ID = rule(
    "TW118", "invalid-question-id", E, "An Answer's question_id is not a message id.",
    requirements=("TW-ENV-024", "TW-ID-001"),
    rationale="""
question_id repeats the id of the Ask (or notification Message) being answered, so it is a
message id: not empty, and without white space, '<', '>' or '"'. It need not have the shape of
the prefix table: the asker may have chosen it.""",
    bad=env("Full-Stack Engineer_1", "回答", "ans_fse_001", "Answer", "Yes, see api.md.",
            ' question_id="the API question"'),
    good=env("Full-Stack Engineer_1", "回答", "ans_fse_001", "Answer", "Yes, see api.md.",
             ' question_id="api-question"'))


def _quiet_without_attributes(mtype: MessageType | None, owner: Owner) -> bool:
    # The quiet test of the checks that look only at attributes or a header's receiver: an
    # envelope with neither gives them nothing to report.
    return True


@check(ID_ATTRIBUTE, EnvelopeAttributes, always=True, quiet=_quiet_without_attributes)
def _id_attribute(fact: EnvelopeAttributes, report: Report[EnvelopeAttributes]) -> None:
    for name, value in fact.attributes:
        if name == "id":
            report(fact, f"id given as an attribute (id=\"{shorten(value)}\"); the id belongs "
                   "on the id line", attribute_offset(fact.text, name))


@check(MISSING_QUESTION_ID, EnvelopeAttributes, always=True, quiet=_quiet_unless_answer)
def _missing_question_id(fact: EnvelopeAttributes, report: Report[EnvelopeAttributes]) -> None:
    if fact.mtype is _ANSWER and all(name != "question_id" for name, _ in fact.attributes):
        report(fact, "Answer without a question_id attribute", line_start(fact.text, 4) + 1)


@check(MISPLACED_QUESTION_ID, EnvelopeAttributes, always=True, quiet=_quiet_without_attributes)
def _misplaced_question_id(fact: EnvelopeAttributes,
                           report: Report[EnvelopeAttributes]) -> None:
    if fact.owner.strict and fact.mtype is not None and fact.mtype is not _ANSWER:
        for name, _value in fact.attributes:
            if name == "question_id":
                report(fact, f"question_id on {_article(fact.tag)} {fact.tag}; only Answer "
                       "carries it", attribute_offset(fact.text, name))


@check(UNKNOWN_ATTRIBUTE, EnvelopeAttributes, always=True, quiet=_quiet_without_attributes)
def _unknown_attribute(fact: EnvelopeAttributes, report: Report[EnvelopeAttributes]) -> None:
    # Strict only; 1.1 added no attribute to 1.0's.
    if fact.owner.strict:
        for name, _value in fact.attributes:
            if name not in _SPEC_ATTRIBUTES:
                report(fact, f"attribute {shorten(name)!r} is not part of spec {SPEC_VERSION}",
                       attribute_offset(fact.text, name))


@check(ASTRION_DIALECT, EnvelopeAttributes, always=True, quiet=_quiet_without_attributes)
def _astrion_dialect(fact: EnvelopeAttributes, report: Report[EnvelopeAttributes]) -> None:
    # Quiet about an envelope without attributes or a receiver, though the label may be the
    # dialect's: the quiet paths take only labels the profile knows, which under strict this
    # one is not, so every envelope with it reaches this check.
    if not fact.owner.strict:
        return
    if fact.label == ASTRION_COMPLETION_LABEL:
        report(fact, f"label {fact.label!r} is the astrion dialect's completion label; profile "
               "strict uses '任务完成汇报'", fact.text.find("\n") - len(fact.label))
    if fact.receiver is not None:
        report(fact, "the header form '来自 A 向 B 的…' belongs to the astrion dialect",
               fact.text.find(" 向 ") + 3)


@check(SUBTYPE_MISMATCH, EnvelopeAttributes, always=True, quiet=_quiet_without_attributes)
def _subtype_mismatch(fact: EnvelopeAttributes, report: Report[EnvelopeAttributes]) -> None:
    attributes, mtype, receiver = fact.attributes, fact.mtype, fact.receiver
    if fact.owner.strict or mtype is None:
        return
    for name, value in attributes:
        expected = ASTRION_SUBTYPES.get(value) if name == "subtype" else None
        if expected is None:
            continue
        to = receiver or dict(attributes).get("target") or fact.owner.name
        if mtype is not expected[0] or (expected[1] is not None and to is not None
                                        and (to == LEADER_NAME) is not expected[1]):
            report(fact, f"subtype {value!r} does not fit a {mtype.label} to "
                   f"{to or 'this receiver'}", attribute_offset(fact.text, name))


@check(RECEIVER_CONFLICT, EnvelopeAttributes, always=True, quiet=_quiet_without_attributes)
def _receiver_conflict(fact: EnvelopeAttributes, report: Report[EnvelopeAttributes]) -> None:
    receiver = fact.receiver
    if fact.owner.strict or receiver is None:
        return
    for name, value in fact.attributes:
        if name == "target" and value != receiver:
            report(fact, f"header names receiver {shorten(receiver)} but target is "
                   f"{shorten(value)}", attribute_offset(fact.text, name))


@check(INVALID_QUESTION_ID, EnvelopeAttributes, always=True, quiet=_quiet_without_attributes)
def _invalid_question_id(fact: EnvelopeAttributes, report: Report[EnvelopeAttributes]) -> None:
    if fact.mtype is _ANSWER:
        for name, value in fact.attributes:
            if name == "question_id" and MESSAGE_ID.fullmatch(value) is None:
                report(fact, f"question_id {shorten(value)!r} is not a message id (empty, or "
                       "holds white space, '<' or '>')", attribute_offset(fact.text, name))
