"""Checks on one envelope wherever it appears: syntax, label, tag, id, attributes, names."""

from __future__ import annotations

import re

from teamwire.envelope import (
    ASTRION_COMPLETION_LABEL,
    LEADER_NAME,
    Envelope,
    MessageType,
    ParseError,
    abbreviation,
    is_envelope,
    name_problem,
    parse_lark,
)
from teamwire.envelope.fast_parser import Fields, parse_fast
from teamwire.envelope.ids import ASTRION_ID, MESSAGE_ID, STRICT_ID
from teamwire.envelope.syntax_error import find_syntax_error
from teamwire.validator.dispatch import dispatch
from teamwire.validator.facts import EnvelopeText
from teamwire.validator.linter_state import LinterState
from teamwire.validator.memo import IdTest, Plan
from teamwire.validator.rules.envelope_rules import (
    ASTRION_DIALECT,
    DUPLICATE_ATTRIBUTE,
    ENVELOPE_SYNTAX,
    ID_ATTRIBUTE,
    ID_PREFIX_MISMATCH,
    ID_SHAPE,
    INVALID_DISPLAY_NAME,
    INVALID_QUESTION_ID,
    MISPLACED_QUESTION_ID,
    MISSING_QUESTION_ID,
    NAME_MISMATCH,
    RECEIVER_CONFLICT,
    SUBTYPE_MISMATCH,
    TAG_LABEL_MISMATCH,
    UNKNOWN_ATTRIBUTE,
    UNKNOWN_LABEL,
)
from teamwire.validator.rules.id_rules import (
    AGENT_CHOSEN_ID_SHAPE,
    DUPLICATE_DELIVERY,
    ID_ABBREVIATION_MISMATCH,
    ID_REUSED,
)
from teamwire.validator.rules.placement_rules import MISADDRESSED
from teamwire.validator.rules.security_rules import UNSAFE_DISPLAY_NAME
from teamwire.validator.scan import (
    shorten,
    unsafe_name_char,
)

CONTENT = "/content"
_PARSE_CODES = {"syntax": ENVELOPE_SYNTAX, "name-mismatch": NAME_MISMATCH,
                "duplicate-attribute": DUPLICATE_ATTRIBUTE,
                "encoding": ENVELOPE_SYNTAX}
# subtype → (type it requires, whether the receiver must be the leader; None: either)
_SUBTYPES: dict[str, tuple[MessageType, bool | None]] = {
    "progress_output": (MessageType.PROGRESS, None),
    "completion_report": (MessageType.COMPLETION, None),
    "ask_master": (MessageType.ASK, True),
    "ask_other": (MessageType.ASK, False),
}
# A counter as STRICT_ID takes it (from 001, padded to three digits below 1000, TW-ID-005/007),
# for the fast id tests; a test checks both agree.
_COUNTER = "(?:00[1-9]|0[1-9][0-9]|[1-9][0-9]{2,})"
_ANSWER = MessageType.ANSWER
_ASK = MessageType.ASK
_MESSAGE = MessageType.MESSAGE


def _article(word: str) -> str:
    return "an" if word[:1] in "AEIOUaeiou" else "a"


class EnvelopeChecks(LinterState):
    """The envelope half of a conversation pass."""

    def parse_envelope(self, index: int, text: str) -> Fields | bool:
        """The parts of the envelope ``text`` holds, for a text ``scan`` did not take;
        else True if it is a malformed one (reported), or False if it does not present
        itself as an envelope at all."""
        try:
            envelope = parse_fast(text)
            if envelope is None:
                if not is_envelope(text):
                    return False
                error = find_syntax_error(text)
                if error is not None:
                    raise error
                envelope = parse_lark(text)  # only if the fast path and the definition disagree
            return fields_of(envelope)
        except ParseError as exc:
            rule = _PARSE_CODES.get(exc.code, ENVELOPE_SYNTAX)
            if rule.code in self.emitter.policy.enabled:
                self.emit_at(rule, exc.message, index, f"{self.pointer}/{index}{CONTENT}",
                             exc.line, exc.column, exc.context or None)
            self.protocol_seen = True
            return True

    def check_envelope(self, index: int, text: str, fields: Fields) -> MessageType | None:
        """Checks every well-formed envelope gets, wherever it appears; returns its type."""
        sender, receiver, label, message_id, tag, attributes, content = fields
        plan = self.plans.get((label, tag, sender)) or self._shared_plan(label, tag, sender)
        if plan is None:
            mtype = self._check_head(index, text, fields)
        else:
            # Label, tag and sender were checked before and are fine: only the id is left.
            mtype, id_ok = plan
            if receiver is not None:
                self._receiver(index, text, fields)
            if id_ok(message_id) is None:
                self._check_id(index, fields, mtype, mtype.prefix if mtype else None, text)
        if attributes:
            self._attributes(index, text, fields, mtype)
        elif mtype is _ANSWER:
            self.emit(MISSING_QUESTION_ID, "Answer without a question_id attribute", index, CONTENT, text,
                      line_start(text, 4) + 1)
        if self.envelope_checks and self.envelope_gate.opens(text, content):
            dispatch(EnvelopeText(index, text, content), self.envelope_checks, self.emit)
        return mtype

    def _check_head(self, index: int, text: str, fields: Fields) -> MessageType | None:
        """Label, tag, names and id of an envelope whose (label, tag, sender) is new here;
        remember the combination when nothing but the id can be wrong with it."""
        sender, receiver, label, _id, tag, _attributes, _content = fields
        known = self.labels.get(label)
        mtype: MessageType | None = None
        prefix: str | None = None
        if known is None:
            at = text.find("\n") - len(label)
            if label == ASTRION_COMPLETION_LABEL:
                self.emit(ASTRION_DIALECT, f"label {label!r} is the astrion dialect's completion label; "
                          "profile strict uses '任务完成汇报'", index, CONTENT, text, at)
                mtype, prefix = MessageType.COMPLETION, "out"
            else:
                self.emit(UNKNOWN_LABEL, f"unknown label {shorten(label)!r}", index, CONTENT, text, at)
        else:
            mtype, wanted_tag, prefix = known
            if tag != wanted_tag:
                self.emit(TAG_LABEL_MISMATCH, f"label {label!r} takes tag <{wanted_tag}>, not <{tag}>",
                          index, CONTENT, text, line_start(text, 4) + 1)
        if receiver is not None:
            self._receiver(index, text, fields)
        if not self.names.get(sender):
            self.check_name(sender, index, text, 3)
        self._check_id(index, fields, mtype, prefix, text)
        if known is not None and tag == known[1] and self.names.get(sender):
            plan = (known[0], self._id_pattern(known[2], sender))
            self.plans[(label, tag, sender)] = plan
            self.memo.add_plan(self._plan_key(label, tag, sender), plan)
        return mtype

    def _plan_key(self, label: str, tag: str, sender: str) -> tuple[object, ...]:
        # Everything a plan depends on: the profile, whether ids abbreviate their sender
        # (TW305 on), and the sender's role id, which its abbreviation may come from.
        role_id = self.session.role_id(sender) if self.session is not None else None
        return (self.strict, self.check_abbreviations, role_id, label, tag, sender)

    def _shared_plan(self, label: str, tag: str, sender: str) -> Plan | None:
        """The plan another conversation made for this head, if any (now also this one's)."""
        plan = self.memo.plans.get(self._plan_key(label, tag, sender))
        if plan is not None:
            self.plans[(label, tag, sender)] = plan
        return plan

    def _id_pattern(self, prefix: str, sender: str) -> IdTest:
        """A test that an id of this prefix from ``sender`` is one ``_check_id`` accepts
        without a finding (it may reject some that are fine; those get the full check)."""
        if prefix == "task":
            pattern = "task_" + _COUNTER
        else:
            abbr = self._abbreviation(sender) if self.check_abbreviations else None
            pattern = prefix + "_" + (re.escape(abbr) if abbr else "[a-z0-9]+") + "_" + _COUNTER
        if not self.strict:
            pattern += "|" + ASTRION_ID.pattern
        return self.memo.id_test(pattern)

    def _receiver(self, index: int, text: str, fields: Fields) -> None:
        receiver = fields[1] or ""
        at = text.find(" 向 ") + 3
        if self.strict:
            self.emit(ASTRION_DIALECT, "the header form '来自 A 向 B 的…' belongs to the astrion dialect",
                      index, CONTENT, text, at)
        elif self.name is not None and receiver != self.name:
            self.emit(MISADDRESSED, f"message addressed to {shorten(receiver)} is in the conversation "
                      f"of {self.name}", index, CONTENT, text, at)
        if not self.names.get(receiver):
            self.check_name(receiver, index, text, at)

    def _attributes(self, index: int, text: str, fields: Fields,
                    mtype: MessageType | None) -> None:
        has_question_id = False
        for name, value in fields[5]:
            if not self.strict and name in ("target", "subtype"):
                self._astrion_attribute(index, text, fields, mtype, name, value,
                                        attribute_offset(text, name))
            elif name == "question_id":
                has_question_id = True
                if mtype is _ANSWER and MESSAGE_ID.fullmatch(value) is None:
                    self.emit(INVALID_QUESTION_ID, f"question_id {shorten(value)!r} is not a message id "
                              "(empty, or holds white space, '<' or '>')", index, CONTENT, text,
                              attribute_offset(text, name))
                if mtype is not None and mtype is not _ANSWER and self.strict:
                    tag = fields[4]
                    self.emit(MISPLACED_QUESTION_ID, f"question_id on {_article(tag)} {tag}; only Answer "
                              "carries it", index, CONTENT, text, attribute_offset(text, name))
            elif name == "id":
                self.emit(ID_ATTRIBUTE, f"id given as an attribute (id=\"{shorten(value)}\"); the id "
                          "belongs on the id line", index, CONTENT, text,
                          attribute_offset(text, name))
            elif self.strict:
                self.emit(UNKNOWN_ATTRIBUTE, f"attribute {shorten(name)!r} is not part of spec 1.0", index,
                          CONTENT, text, attribute_offset(text, name))
        if mtype is _ANSWER and not has_question_id:
            self.emit(MISSING_QUESTION_ID, "Answer without a question_id attribute", index, CONTENT, text,
                      line_start(text, 4) + 1)

    def _astrion_attribute(self, index: int, text: str, fields: Fields,
                           mtype: MessageType | None, name: str, value: str, at: int) -> None:
        receiver = fields[1]
        if name == "target":
            if receiver is not None and receiver != value:
                self.emit(RECEIVER_CONFLICT, f"header names receiver {shorten(receiver)} but target "
                          f"is {shorten(value)}", index, CONTENT, text, at)
            elif self.name is not None and value != self.name:
                self.emit(MISADDRESSED, f"message addressed to {shorten(value)} is in the "
                          f"conversation of {self.name}", index, CONTENT, text, at)
            return
        expected = _SUBTYPES.get(value)
        if expected is None or mtype is None:
            return
        receiver = receiver or dict(fields[5]).get("target") or self.name
        wrong = mtype is not expected[0] or (
            expected[1] is not None and receiver is not None
            and (receiver == LEADER_NAME) is not expected[1])
        if wrong:
            self.emit(SUBTYPE_MISMATCH, f"subtype {value!r} does not fit a {mtype.label} to "
                      f"{receiver or 'this receiver'}", index, CONTENT, text, at)

    def check_name(self, name: str, index: int | None, text: str | None, at: int | None,
                   tail: str = CONTENT) -> bool:
        """Report a display name that is unsafe or malformed; remember names that are fine."""
        bad = unsafe_name_char(name)
        if bad is not None:
            self.emit(UNSAFE_DISPLAY_NAME, f"display name {shorten(name)!r} holds {bad!r} "
                      f"(U+{ord(bad):04X})", index, tail, text, at)
            return False
        problem = name_problem(name)
        if problem is not None:
            self.emit(INVALID_DISPLAY_NAME, f"{problem}: {shorten(name)!r}", index, tail, text, at)
            return False
        self.names[name] = True
        return True

    def _check_id(self, index: int, fields: Fields, mtype: MessageType | None,
                  wanted: str | None, text: str) -> None:
        sender, message_id, tag, label = fields[0], fields[3], fields[4], fields[2]
        match = STRICT_ID.fullmatch(message_id)
        # Asks and sub-agents' messages carry ids the agent chose, whose shape is only a SHOULD
        # (TW-ID-012); the MUST of TW-ID-003 binds the ids the router allocates.
        chosen = mtype is _ASK or (mtype is _MESSAGE and sender != LEADER_NAME)
        if match is None:
            if not self.strict and ASTRION_ID.fullmatch(message_id):
                return
            at = text.find("\n") + 5
            self.emit(AGENT_CHOSEN_ID_SHAPE if chosen else ID_SHAPE, f"id {shorten(message_id)!r} is not "
                      "'task_NNN' or '{prefix}_{abbr}_NNN'", index, CONTENT, text, at)
            return
        prefix = match.group("prefix") or "task"
        if wanted is not None and prefix != wanted:
            self.emit(AGENT_CHOSEN_ID_SHAPE if chosen else ID_PREFIX_MISMATCH,
                      f"id {message_id!r} has prefix "
                      f"{prefix + '_'!r}; {_article(tag)} {tag} ({label}) "
                      f"takes {wanted + '_'!r}", index,
                      CONTENT, text, text.find("\n") + 5)
            return
        if self.check_abbreviations and prefix != "task":
            expected = self._abbreviation(sender)
            abbr = match.group("abbr")
            if expected is not None and abbr != expected:
                self.emit(ID_ABBREVIATION_MISMATCH, f"id {message_id!r} abbreviates the sender {sender} as "
                          f"{abbr!r}; expected {expected!r}", index, CONTENT, text,
                          text.find("\n") + 6 + len(prefix))

    def _abbreviation(self, sender: str) -> str | None:
        cache = self.abbreviations
        if sender in cache:
            return cache[sender]
        expected: str | None = None
        if sender == LEADER_NAME:
            expected = "tl"
        else:
            cut = sender.rfind("_")
            if cut > 0 and name_problem(sender) is None:
                role_id = self.session.role_id(sender) if self.session is not None else None
                # Without a role id, only role names with capitals abbreviate for sure.
                if role_id is not None or any("A" <= ch <= "Z" for ch in sender[:cut]):
                    expected = abbreviation(sender[:cut], role_id)
        cache[sender] = expected
        return expected

    def record_id(self, index: int, fields: Fields, text: str) -> None:
        """Remember the id of a delivered envelope; report a second delivery or a reuse."""
        sender, _receiver, label, message_id, tag, attributes, content = fields
        if attributes and not self.strict and tag == "Answer" \
                and message_id == dict(attributes).get("question_id"):
            return  # astrion: an answer may reuse its question's id
        message = (sender, label, tag, content)
        digest = hash(message) if self.hash_ids else message
        ids = self.ids
        seen = ids.get(message_id)
        if seen is None:
            ids[message_id] = (digest, index)
            return
        at = text.find("\n") + 5
        if seen[0] == digest:
            self.emit(DUPLICATE_DELIVERY, f"message {message_id!r} is delivered again (first at message "
                      f"{seen[1]})", index, CONTENT, text, at)
        else:
            self.emit(ID_REUSED, f"id {message_id!r} is already used by another message (message "
                      f"{seen[1]})", index, CONTENT, text, at)


def fields_of(envelope: Envelope) -> Fields:
    """An envelope's parts in the order ``scan`` gives them."""
    return (envelope.sender, envelope.receiver, envelope.label, envelope.id, envelope.tag,
            envelope.attributes, envelope.content)




def line_start(text: str, n: int) -> int:
    """Offset of the start of line ``n`` (0-based) of ``text``."""
    at = -1
    for _ in range(n):
        at = text.find("\n", at + 1)
        if at < 0:
            return len(text)
    return at + 1


def attribute_offset(text: str, name: str) -> int:
    """Offset of attribute ``name`` on the inner open tag line."""
    start = line_start(text, 4)
    at = text.find(f" {name}=", start)
    return at + 1 if at >= 0 else start
