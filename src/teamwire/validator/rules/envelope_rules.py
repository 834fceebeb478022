"""TW1xx: the envelope text of each protocol message."""

from __future__ import annotations

from teamwire.validator.facts import EnvelopeText, UserText
from teamwire.validator.findings import Severity
from teamwire.validator.registry import Report, check, rule
from teamwire.validator.rules.examples import env, user

E, W = Severity.ERROR, Severity.WARNING
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

DUPLICATE_ATTRIBUTE = rule(
    "TW103", "duplicate-attribute", E, "The inner tag carries one attribute twice.",
    requirements=("TW-ENV-015",),
    rationale="Two values for one attribute leave the reader to guess which one counts.",
    bad=user(env("Full-Stack Engineer_1", "回答", "ans_fse_001", "Answer", "Yes.",
                 ' question_id="ask_uio_001" question_id="ask_uio_002"')),
    good=user(env("Full-Stack Engineer_1", "回答", "ans_fse_001", "Answer", "Yes.",
                  ' question_id="ask_uio_001"')))

UNKNOWN_LABEL = rule(
    "TW104", "unknown-label", E, "The header label is not one of the six message types.",
    requirements=("TW-TYPE-002", "TW-VER-006", "TW-TYPE-001"),
    rationale="""
The label names the message type: 任务发布, 任务进度输出, 任务完成汇报, 提问, 消息 or 回答. An
unknown label is invalid rather than ignored, because a new type would change the meaning.""",
    bad=user(env("UI Operator_1", "通知", "msg_uio_001", "Message", "Ready.")),
    good=user(env("UI Operator_1", "消息", "msg_uio_001", "Message", "Ready.")))

TAG_LABEL_MISMATCH = rule(
    "TW105", "tag-label-mismatch", E, "The inner tag is not the tag of the label's type.",
    requirements=("TW-TYPE-003",),
    rationale="""
Label and tag must agree: 任务发布/Task, 任务进度输出 and 任务完成汇报/Output, 提问/Ask,
消息/Message, 回答/Answer.""",
    bad=user(env("Team Leader", "任务发布", "task_001", "Message", "Design the palette.")),
    good=user(env("Team Leader", "任务发布", "task_001", "Task", "Design the palette.")))

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

ID_SHAPE = rule(
    "TW107", "id-shape", E,
    "A router-allocated id is not 'task_NNN' or '{prefix}_{abbr}_NNN'.",
    requirements=("TW-ID-003", "TW-ID-005", "TW-PROF-011"),
    rationale="""
The router allocates the ids of tasks, reports, answers and the leader's messages as task_NNN
or prefix_abbreviation_NNN (three or more digits). Profile astrion also accepts msg_ followed by
ten lowercase hex digits for every type.""",
    bad=user(env("Team Leader", "任务发布", "T-1", "Task", "Design the palette.")),
    good=user(env("Team Leader", "任务发布", "task_001", "Task", "Design the palette.")))

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
    "TW111", "unknown-attribute", W, "The inner tag carries an attribute spec 1.0 does not define.",
    requirements=("TW-ENV-022", "TW-VER-005"), profiles=("strict",),
    rationale="""
Readers ignore unknown attributes, but a writer of profile strict writes no attribute other than
question_id. Profile astrion's target and subtype are reported here under strict.""",
    bad=user(env("UI Operator_1", "提问", "ask_uio_001", "Ask", "Is the API final?",
                 ' priority="high"')),
    good=user(_ASK))

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
