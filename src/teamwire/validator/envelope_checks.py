"""The envelope half of a conversation pass: reads each envelope (wherever it appears) into
the facts its rules check (``facts``: head, names, id, attributes, text) and remembers the
heads found fine, so that later envelopes of those heads need only their id tested."""

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
from teamwire.envelope.ids import ASTRION_ASK_ID, ASTRION_ID, STRICT_ID, astrion_id
from teamwire.envelope.syntax_error import find_syntax_error
from teamwire.validator.dispatch import Emit, dispatch, reported
from teamwire.validator.facts import (
    DisplayName,
    EnvelopeAttributes,
    EnvelopeHead,
    EnvelopeId,
    EnvelopeText,
    IdRepeated,
    Unparsed,
)
from teamwire.validator.linter_state import LinterState
from teamwire.validator.memo import IdTest, Plan
from teamwire.validator.registry import Rule
from teamwire.validator.scan import attribute_offset as attribute_offset
from teamwire.validator.scan import line_start as line_start

# A counter as STRICT_ID takes it (from 001, padded to three digits below 1000, TW-ID-005/007),
# for the fast id tests; a test checks both agree.
_COUNTER = "(?:00[1-9]|0[1-9][0-9]|[1-9][0-9]{2,})"
_ANSWER = MessageType.ANSWER
_ASK = MessageType.ASK
_MESSAGE = MessageType.MESSAGE


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
            if self.unparsed_checks:
                dispatch(Unparsed(index, text, exc.code, exc.message), self.unparsed_checks,
                         self._at_error(exc))
            self.protocol_seen = True
            return True

    def _at_error(self, exc: ParseError) -> Emit:
        """An emit that places findings where the parser stopped."""
        def emit(rule: Rule, message: str, index: int | None, tail: str = "",
                 text: str | None = None, offset: int | None = None) -> None:
            assert index is not None
            self.emit_at(rule, message, index, f"{self.pointer}/{index}{tail}", exc.line,
                         exc.column, exc.context or None)
        return emit

    def check_envelope(self, index: int, text: str, fields: Fields) -> MessageType | None:
        """Hand a well-formed envelope, wherever it appears, to its checks; returns its type."""
        sender, receiver, label, message_id, tag, attributes, content = fields
        plan = self.plans.get((label, tag, sender)) or self._shared_plan(label, tag, sender)
        if plan is None:
            mtype = self._check_head(index, text, fields)
        else:
            # Label, tag and sender were found fine before: only the id is left.
            mtype, id_ok = plan
            if id_ok(message_id) is None:
                self._check_id(index, fields, mtype, mtype.prefix if mtype else None, text)
        if receiver is not None and not self.names.get(receiver):
            self.check_name(receiver, index, text, text.find(" 向 ") + 3)
        if self.attribute_hand:
            self.attribute_hand(EnvelopeAttributes(index, text, sender, receiver, label, tag,
                                                   mtype, attributes, self.owner), self.report)
        if self.envelope_hand and self.envelope_gate.opens(text, content):
            self.envelope_hand(EnvelopeText(index, text, content), self.report)
        return mtype

    def _check_head(self, index: int, text: str, fields: Fields) -> MessageType | None:
        """Label, tag, sender and id of an envelope whose (label, tag, sender) is new here;
        remember the combination when no check of heads or names reports it, on or off."""
        sender, _receiver, label, _id, tag, _attributes, _content = fields
        known = self.labels.get(label)
        mtype: MessageType | None = None
        prefix: str | None = None
        if known is not None:
            mtype, prefix = known[0], known[2]
        elif label == ASTRION_COMPLETION_LABEL:
            # The dialect's completion label (reported under strict) still names a completion.
            mtype, prefix = MessageType.COMPLETION, "out"
        fine = not reported(EnvelopeHead(index, text, sender, label, tag, known),
                            self.head_every, self.emit)
        if not self.names.get(sender):
            fine = self.check_name(sender, index, text, 3) and fine
        self._check_id(index, fields, mtype, prefix, text)
        if fine and known is not None:
            plan = (known[0], self._id_pattern(known[2], sender))
            self.plans[(label, tag, sender)] = plan
            self.memo.add_plan(self._plan_key(label, tag, sender), plan)
        return mtype

    def _plan_key(self, label: str, tag: str, sender: str) -> tuple[object, ...]:
        # Everything a plan depends on: the profile and the sender's role id, which its
        # abbreviation may come from.
        role_id = self.session.role_id(sender) if self.session is not None else None
        return (self.strict, role_id, label, tag, sender)

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
            # The abbreviation the sender's role takes, whether a rule on checks it or not:
            # an id the test refuses only takes the full id checks.
            abbr = self._abbreviation(sender)
            pattern = prefix + "_" + (re.escape(abbr) if abbr else "[a-z0-9]+") + "_" + _COUNTER
        if not self.strict:
            pattern += "|" + ASTRION_ID.pattern
            if prefix == "ask":
                pattern += "|" + ASTRION_ASK_ID.pattern
        return self.memo.id_test(pattern)

    def check_name(self, name: str, index: int | None, text: str | None,
                   at: int | None) -> bool:
        """Hand a display name to the checks of names, on or off; remember it when none
        reports it. Whether it is fine."""
        if reported(DisplayName(index, text, name, at), self.name_every, self.emit):
            return False
        self.names[name] = True
        return True

    def _check_id(self, index: int, fields: Fields, mtype: MessageType | None,
                  wanted: str | None, text: str) -> None:
        sender, message_id = fields[0], fields[3]
        if not self.strict and astrion_id(message_id, mtype):
            return  # before the strict shape: 'ask_other_' + ten digits would read as one
        if not self.id_hand:
            return
        match = STRICT_ID.fullmatch(message_id)
        # Asks and sub-agents' messages carry ids the agent chose, whose shape is only a SHOULD
        # (TW-ID-012); the MUST of TW-ID-003 binds the ids the router allocates.
        chosen = mtype is _ASK or (mtype is _MESSAGE and sender != LEADER_NAME)
        abbreviation = self._abbreviation(sender) \
            if match is not None and match.group("prefix") else None
        self.id_hand(EnvelopeId(index, text, sender, message_id, fields[2], fields[4], mtype,
                                wanted, chosen, match, self.strict, abbreviation), self.report)

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
        entry = (index, hash((sender, label, tag, content))) if self.hash_ids \
            else (index, sender, label, tag, content)
        ids = self.ids
        seen = ids.get(message_id)
        if seen is None:
            ids[message_id] = entry
            return
        if self.repeat_hand:
            self.repeat_hand(IdRepeated(index, text, message_id, seen[0],
                                        seen[1:] == entry[1:]), self.report)


def fields_of(envelope: Envelope) -> Fields:
    """An envelope's parts in the order ``scan`` gives them."""
    return (envelope.sender, envelope.receiver, envelope.label, envelope.id, envelope.tag,
            envelope.attributes, envelope.content)
