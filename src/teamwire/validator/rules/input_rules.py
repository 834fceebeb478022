"""TW0xx: problems with the input itself, before any protocol rule applies.

The checks of file-scope rules take the facts ``engine`` finds reading the input (each
with its ``Place``); TW004 and TW005 check messages, as the conversation pass reads them.
"""

from __future__ import annotations

import re

import orjson

from teamwire.envelope import LEADER_NAME, LEADER_ROLE_ID, is_role_id
from teamwire.json_text import value_kind
from teamwire.spec_version import SPEC_MAJOR
from teamwire.validator.facts import (
    BundleEntry,
    BundleHead,
    LoneConversation,
    LongRecord,
    Malformed,
    NotJson,
    NotText,
    RepeatedMember,
    TopLevel,
    Unreadable,
)
from teamwire.validator.findings import Severity
from teamwire.validator.registry import Report, check, rule
from teamwire.validator.scan import json_type, shorten

E, W, INFO = Severity.ERROR, Severity.WARNING, Severity.INFO

INVALID_JSON = rule(
    "TW001", "invalid-json", E, "The file (or a JSONL line) is not valid JSON.",
    requirements=("TW-SEC-014",), scope="file",
    rationale="""
Nothing else can be checked in a file that does not decode. The finding gives the line and
column of the first syntax error in the file, as the JSON decoder reports it.""",
    bad='{"teamwire": "1.0", "agents": {',
    good='{"teamwire": "1.0", "agents": {"Team Leader": {"role_id": "team-leader", '
         '"messages": []}}}')


@check(INVALID_JSON, NotJson, always=True)
def _invalid_json(fact: NotJson, report: Report[NotJson]) -> None:
    if fact.empty:
        report(fact, "invalid JSON: the input is empty (expected a session bundle or a "
               "conversation)")
    elif fact.byte is None:  # bad UTF-8 is TW002's
        report(fact, "invalid JSON" if fact.reason is None else f"invalid JSON: {fact.reason}")

INVALID_ENCODING = rule(
    "TW002", "invalid-encoding", E, "The input is not UTF-8.",
    requirements=("TW-ENV-016",), scope="file",
    rationale="""
Transcripts and envelopes are UTF-8 text. Binary data or another encoding is reported at the
first byte that does not decode, with its line and column.""",
    bad="bytes 0xff 0xfe at the start of a .json file (UTF-16)",
    good="the same transcript saved as UTF-8")


@check(INVALID_ENCODING, NotJson, always=True)
def _invalid_encoding(fact: NotJson, report: Report[NotJson]) -> None:
    if fact.byte is not None and not fact.empty:
        report(fact, f"not UTF-8: byte 0x{fact.byte:02x} at offset {fact.offset} "
               f"({fact.reason})")

UNEXPECTED_SHAPE = rule(
    "TW003", "unexpected-shape", E,
    "The JSON is neither a session bundle nor a conversation, or a bundle is malformed.",
    requirements=("TW-SEC-014",), scope="file",
    rationale="""
A transcript is a session bundle ({"teamwire", "agents": {name: {role_id, agent_id, messages}}})
or one conversation (an array of chat messages, or JSON Lines with one message per line). Any
other top-level value, an 'agents' member that is not an object, an entry that is not an object,
'messages' that is not an array, or a bundle without the Team Leader is reported here. So is
a router event log (JSON Lines whose first record has seq and event and no role), once, instead
of a finding for every record. A file found by searching a directory whose shape is plainly no
transcript (a package.json, say) is skipped with a note instead; named on the command line, it
is reported here.""",
    bad='{"role": "user", "content": "hello"}',
    good='[{"role": "user", "content": "hello"}]')


@check(UNEXPECTED_SHAPE, TopLevel, always=True)
def _unexpected_top_level(fact: TopLevel, report: Report[TopLevel]) -> None:
    value = fact.value
    if fact.event_log:
        report(fact, "this is a teamwire event log (records with seq and event), not a "
               "conversation; lint the session bundle instead")
    elif type(value) is dict:
        what = ("a single message; a conversation is an array of messages"
                if "role" in value else "an object that is neither a bundle nor a conversation")
        report(fact, f"top level is {what}")
    elif type(value) is not list:
        report(fact, f"top level is {value_kind(value)}; expected a session bundle (object) "
               "or a conversation (array of messages)")


@check(UNEXPECTED_SHAPE, BundleHead, always=True)
def _unexpected_agents(fact: BundleHead, report: Report[BundleHead]) -> None:
    bundle = fact.bundle
    agents = bundle.get("agents")
    if type(agents) is not dict:
        what = f"'agents' is {value_kind(agents)}, not" if "agents" in bundle \
            else "bundle has no 'agents',"
        report(fact, f"{what} an object mapping display names to conversations",
               below="/agents")
    elif LEADER_NAME not in agents:
        report(fact, "bundle has no 'Team Leader' entry", below="/agents")


@check(UNEXPECTED_SHAPE, BundleEntry, always=True)
def _unexpected_entry(fact: BundleEntry, report: Report[BundleEntry]) -> None:
    entry = fact.entry
    if type(entry) is not dict:
        report(fact, f"entry of {shorten(fact.name)} is {value_kind(entry)}, not an object")
        return
    messages = entry.get("messages")
    if type(messages) is not list:
        report(fact, f"messages of {shorten(fact.name)} is {value_kind(messages)}, not an "
               "array", below="/messages")

INVALID_MESSAGE = rule(
    "TW004", "invalid-message", E,
    "A message is not a chat-completions message (role, content, tool_calls, tool_call_id).",
    requirements=("TW-SEC-014",),
    rationale="""
Each message is an object with role system, user, assistant or tool; content a string (null only
on an assistant message that calls tools); tool_calls on assistant messages, each with an id and a
function name; tool_call_id on tool messages. Anything else cannot be checked further.""",
    bad='{"role": "robot", "content": 42}',
    good='{"role": "assistant", "content": "Looking at the styles first."}')


@check(INVALID_MESSAGE, Malformed, always=True)
def _invalid_message(fact: Malformed, report: Report[Malformed]) -> None:
    report(fact, fact.problem)


@check(INVALID_MESSAGE, NotText, always=True)
def _content_not_text(fact: NotText, report: Report[NotText]) -> None:
    # Content given as parts is TW005's.
    if type(fact.content) is not list:
        report(fact, f"content of {fact.what} is {json_type(fact.content)}, not a string")

MULTIMODAL_CONTENT = rule(
    "TW005", "multimodal-content", W,
    "Content is an array of parts; protocol messages are plain strings.",
    requirements=("TW-TYPE-022",),
    rationale="""
Every protocol message is delivered as one user message whose entire content is the envelope
text (TW-TYPE-011). Content given as an array of parts (text, images) is not an envelope and its
parts are not checked; a router never produces it for protocol messages. Whether such a message
was meant as one (which would break the MUST of TW-TYPE-011) cannot be told from the
transcript, since a request may carry an image: what the rule enforces is the SHOULD of
TW-TYPE-022, that a conversation's messages are text, so it is a warning.""",
    bad='{"role": "user", "content": [{"type": "text", "text": "来自 Team Leader 的任务发布…"}]}',
    good='{"role": "user", "content": "来自 Team Leader 的任务发布\\nid: task_001\\n…"}')


@check(MULTIMODAL_CONTENT, NotText, always=True)
def _multimodal_content(fact: NotText, report: Report[NotText]) -> None:
    if type(fact.content) is list:
        report(fact, f"content of {fact.what} is an array of parts; protocol messages are plain "
               "strings, so its parts are not checked")

UNSUPPORTED_VERSION = rule(
    "TW006", "unsupported-version", E, "The bundle's 'teamwire' version is missing, "
    "malformed or not 1.x.",
    requirements=("TW-VER-001", "TW-VER-002", "TW-VER-003"), scope="file",
    rationale="""
A bundle names the protocol version it follows in its 'teamwire' member: a major number, '.',
and a minor number, both ASCII decimal without leading zeros ('1', '1.01' and '1.2.3' are
malformed). Readers of spec 1.0 accept any 1.x (minor versions only add optional features) and
must reject other major versions.""",
    bad='{"teamwire": "2.0", "agents": {…}}',
    good='{"teamwire": "1.0", "agents": {…}}')

# ASCII digits only: str.isdigit() also takes "²" or "١", which int() then rejects or misreads.
_VERSION = re.compile(r"(?:0|[1-9][0-9]*)\.(?:0|[1-9][0-9]*)")


@check(UNSUPPORTED_VERSION, BundleHead, always=True)
def _unsupported_version(fact: BundleHead, report: Report[BundleHead]) -> None:
    bundle = fact.bundle
    version = bundle.get("teamwire")
    if type(version) is not str:
        report(fact, "bundle has no 'teamwire' version string",
               below="/teamwire" if "teamwire" in bundle else "")
    elif _VERSION.fullmatch(version) is None:
        report(fact, f"bundle version {shorten(version)!r} is not major.minor, both decimal "
               "without leading zeros", below="/teamwire")
    elif version.split(".", 1)[0] != SPEC_MAJOR:
        report(fact, f"bundle version {shorten(version)!r} is not 1.x", below="/teamwire")

AGENT_ENTRY_MISMATCH = rule(
    "TW007", "agent-entry-mismatch", E,
    "A bundle entry's role_id or agent_id does not fit its display name.",
    requirements=("TW-NAME-001", "TW-NAME-002", "TW-NAME-013"), scope="file",
    rationale="""
The Team Leader's entry has role_id 'team-leader' and no agent_id; a sub-agent's entry has a
valid sub-agent role id and the agent_id its display name ends with. Targeting calls are resolved
through these fields, so a mismatch breaks every flow check.""",
    bad='"UI Operator_2": {"role_id": "ui-operator", "agent_id": 1, "messages": […]}',
    good='"UI Operator_2": {"role_id": "ui-operator", "agent_id": 2, "messages": […]}')


@check(AGENT_ENTRY_MISMATCH, BundleEntry, always=True)
def _agent_entry_mismatch(fact: BundleEntry, report: Report[BundleEntry]) -> None:
    entry, name, number = fact.entry, fact.name, fact.number
    if type(entry) is not dict:
        return
    role_id = entry.get("role_id")
    agent_id = entry.get("agent_id")
    if name == LEADER_NAME:
        if role_id != LEADER_ROLE_ID or "agent_id" in entry:
            report(fact, "the Team Leader's entry must have role_id 'team-leader' and no "
                   "agent_id")
        return
    if type(role_id) is not str or not is_role_id(role_id) or role_id == LEADER_ROLE_ID:
        report(fact, f"role_id of {shorten(name)} is missing or not a sub-agent role id",
               below="/role_id")
    if type(agent_id) is not int or isinstance(agent_id, bool) or agent_id != number:
        report(fact, f"agent_id of {shorten(name)} must be the number its name ends with "
               f"({number if number is not None else 'none'})", below="/agent_id")

RECORD_TOO_LARGE = rule(
    "TW008", "record-too-large", E, "A JSONL line is longer than the configured limit.",
    requirements=("TW-SEC-013",), scope="file",
    rationale="""
JSON Lines are read one line at a time so that memory stays flat; a line longer than
max-record-bytes (64 MiB by default) is skipped and reported instead of being loaded.""",
    bad="one 100 MB line in conversation.jsonl",
    good="one message per line, each of reasonable size")


@check(RECORD_TOO_LARGE, LongRecord, always=True)
def _record_too_large(fact: LongRecord, report: Report[LongRecord]) -> None:
    report(fact, f"line is longer than {fact.limit} bytes; skipped")

UNIDENTIFIED_AGENT = rule(
    "TW009", "unidentified-agent", INFO,
    "A lone conversation's agent could not be inferred; direction checks are skipped.",
    requirements=("TW-SEC-015",), scope="file",
    rationale="""
Whether a message may appear in a conversation depends on whose conversation it is. Without
--agent the linter infers it: the Team Leader if it calls leader tools or receives reports, a
sub-agent if it calls sub-agent tools or receives tasks or messages. When nothing tells, the
checks that need the owner are skipped and this note says so; a conversation without messages
has nothing to check and gets no note.""",
    bad='[{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]',
    good="teamwire lint --agent \"UI Operator_1\" conversation.json")


@check(UNIDENTIFIED_AGENT, LoneConversation, always=True)
def _unidentified_agent(fact: LoneConversation, report: Report[LoneConversation]) -> None:
    # An empty conversation has nothing the owner would change the checks of.
    if not fact.known and fact.messages:
        report(fact, "cannot tell whose conversation this is (no leader or sub-agent tool "
               "calls, no tasks or reports); pass --agent to check direction rules")

UNREADABLE_INPUT = rule(
    "TW010", "unreadable-input", E, "An input path cannot be read (missing, a directory, no access).",
    requirements=("TW-SEC-013",), scope="file",
    rationale="""
A path named on the command line that cannot be read is reported as a finding, so that every
output format shows it, and the run exits with code 2. It is an error whatever the selection
and severity settings say: a run that read nothing of an input has checked nothing of it.""",
    bad="teamwire lint missing.json",
    good="teamwire lint session.json")


@check(UNREADABLE_INPUT, Unreadable, always=True)
def _unreadable_input(fact: Unreadable, report: Report[Unreadable]) -> None:
    report(fact, fact.reason)

REPEATED_MEMBER_NAME = rule(
    "TW011", "repeated-member-name", E,
    "An object of the file's JSON names one member twice.",
    requirements=("TW-SEC-016",), scope="file", default=False,
    rationale="""
JSON does not say which value of a repeated name counts: some readers keep the first, others
the last (as this linter does), so two tools reading one transcript could check different
messages. One finding per object and name gives the object's pointer (which follows the text as
written) and the line and column of the first repeat. JSON inside strings is not read for this:
repeats inside a protocol tool call's arguments are always reported, as TW418. Finding repeats
means decoding the whole text once more, which makes a lint take up to about twice as long, so
the rule is off unless selected: `--extend-select TW011`, or `extend-select` in the
configuration.""",
    bad='{"role": "user", "content": "Use blue.", "content": "Use red."}',
    good='{"role": "user", "content": "Use blue."}')


@check(REPEATED_MEMBER_NAME, RepeatedMember, always=True)
def _repeated_member_name(fact: RepeatedMember, report: Report[RepeatedMember]) -> None:
    pointer = fact.place.pointer
    inside = f"the object at {shorten(pointer)}" if pointer else "the top-level object"
    times = "twice" if fact.repeats == 1 else f"{fact.repeats + 1} times"
    report(fact, f"{inside} names the member {shorten(orjson.dumps(fact.name).decode())} "
           f"{times}; JSON readers differ on which value wins (this linter keeps the last)")
