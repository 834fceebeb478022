"""Cross-conversation checks of a session bundle (validator/cross_conversation.py), on sessions built from
the specification's rules alone (conformance/sources/transcripts/spec_session.py).

A session built by the spec's rules lints clean, under both profiles (TW-PROF-004). One edit
then breaks one rule, and the oracle is what the specification says that edit breaks, at the
place the rule names:

- a delivery dropped: the message never arrives, TW505 (task, message; TW-DEL-001) or TW501
  (asks; TW-TOOL-013, TW-TOOL-020, TW-TOOL-021), or TW506 when a later message of the same sender
  to the same receiver did arrive (TW-DEL-003); unless the receiver was terminated after the
  send, whose queue is discarded (TW-ROUTE-020). An answer to an Ask that never arrived answers
  an unknown question, TW502 (TW-ROUTE-015); a report that never arrived is TW512 (TW-TYPE-016);
- two deliveries of one sender to one receiver swapped: TW507 at each message that arrives
  before one sent earlier (TW-DEL-003, TW-DEL-005);
- a send_message_to_sub_agent call given another receiver: its Message never reaches the new
  receiver (TW505/TW506) and the old receiver holds a Message no call sent it, TW511
  (TW-SEC-002);
- a Task or Message delivered to the wrong sub-agent: lost for its receiver (TW505/TW506),
  unexpected where it is (TW511), and a second Task there (TW211, TW-TYPE-014);
- a message id given to a second message: TW301 (TW-ID-010, TW-ID-011);
- a delivery repeated: TW302 (TW-DEL-002), TW511 (nothing sent it twice), TW211 for a Task;
- the text that answered ask_sub_agent also reported to the leader: TW514 (TW-TYPE-018).

A loss the transcript proves (a later message of the channel arrived, or the ask was
answered) is reported even when the leader later terminated the receiver: only a message that
may still have been queued is excused (TW-ROUTE-020).

The rules the session checks implement each have a violation and a near miss among the
transcript vectors (conformance/sources/transcripts: spec_flow_cases, spec_id_cases and the
other flow cases); a test here checks that every rule whose scope is the bundle is among them.
"""

from __future__ import annotations

import copy
import json
from collections import Counter
from collections.abc import Callable

import pytest
from conformance.sources.transcripts.spec_session import TL, Agent, Sent, SpecSession, envelope
from hypothesis import assume, event, given, settings
from hypothesis import strategies as st

from teamwire.envelope import Profile
from teamwire.validator import REGISTRY, LintOptions, lint_value
from tests.validator.strategies import ROLES, spec_sessions

Key = tuple[str, str | None, int | None]
SESSIONS = settings(max_examples=60, deadline=None)


def lint(s: SpecSession, profile: Profile = Profile.STRICT) -> Counter[Key]:
    report = lint_value(s.bundle(), options=LintOptions(profile=profile))
    return Counter((f.rule, f.agent, f.index) for f in report.findings)


# -- the oracle ---------------------------------------------------------------------------------


def _terminated_after(s: SpecSession, target: str, sent: Sent) -> bool:
    """Whether the leader terminated ``target`` after ``sent`` was sent (a sub-agent's send and
    the leader's termination are in two conversations: no order, so any termination)."""
    for name, call in s.terminations:
        if name == target and (sent.sender != TL or s.index(TL, call) > s.index(TL, sent.source)):
            return True
    return False


def _arrived(s: SpecSession, sent: Sent, target: str) -> bool:
    return any(m is sent.delivery for m in s.agents[target].messages)


def _lost(s: SpecSession, sent: Sent, target: str, channel: list[Sent]) -> list[Key]:
    """What the spec says of the accepted send ``sent`` that never reached ``target``;
    ``channel`` is every send of its sender to ``target``, in the order sent."""
    where = (sent.sender, s.index(sent.sender, sent.source))
    if any(o.order > sent.order and _arrived(s, o, target) for o in channel):
        return [("TW506", *where)]
    if _terminated_after(s, target, sent) and not _proves_delivery(s, sent, target, channel):
        return []  # still queued when the target was terminated: dropped (TW-ROUTE-020)
    return [("TW501" if sent.kind.startswith("ask") else "TW505", *where)]


def _proves_delivery(s: SpecSession, sent: Sent, target: str, channel: list[Sent]) -> bool:
    """Whether the transcript shows ``sent`` reached its target, though it is not there: a
    later message of the channel arrived (queues are FIFO), or the ask was answered."""
    return sent.answered_by is not None or any(
        o.order > sent.order and _arrived(s, o, target) for o in channel)


def _inversions(s: SpecSession, sends: list[Sent], receiver: str) -> list[Sent]:
    """The sends that arrive before one sent earlier (TW-DEL-003)."""
    at = {id(o): s.index(receiver, o.delivery) for o in sends}
    return [o for o in sends if any(p.order < o.order and at[id(p)] > at[id(o)] for p in sends)]


Edit = Callable[[SpecSession], "list[Key]"]
"""An edit of a session, returning what the spec says it breaks."""


def drop(sent: Sent) -> Edit:
    def edit(s: SpecSession) -> list[Key]:
        s.agents[sent.receiver].messages.remove(sent.delivery)
        if sent.kind == "output":
            return [("TW512", sent.sender, s.index(sent.sender, sent.source))]
        channel = s.channel(sent.sender, sent.receiver)
        expected = _lost(s, sent, sent.receiver, channel)
        if sent.kind in ("ask_master", "ask_other"):
            assert sent.answered_by is not None
            expected.append(("TW502", sent.receiver, s.index(sent.receiver, sent.answered_by)))
        # An ask_sub_agent's answering text was delivered as the Answer: no report is owed
        # (TW-TYPE-018).
        return expected
    return edit


def swap(first: Sent, second: Sent) -> Edit:
    def edit(s: SpecSession) -> list[Key]:
        conversation = s.agents[first.receiver].messages
        i, j = s.index(first.receiver, first.delivery), s.index(first.receiver, second.delivery)
        conversation[i], conversation[j] = conversation[j], conversation[i]
        if first.kind == "output":
            late = _inversions(s, s.outputs(first.sender), TL)
            return [("TW507", TL, s.index(TL, o.delivery)) for o in late]
        late = _inversions(s, s.channel(first.sender, first.receiver), first.receiver)
        return [("TW507", o.sender, s.index(o.sender, o.source)) for o in late]
    return edit


def retarget(sent: Sent, other: Agent) -> Edit:
    def edit(s: SpecSession) -> list[Key]:
        call = sent.source["tool_calls"][0]["function"]
        arguments = json.loads(call["arguments"])
        arguments.update(agent_id=other.agent_id, role_id=other.role_id)
        call["arguments"] = json.dumps(arguments, ensure_ascii=False)
        channel = sorted([*s.channel(TL, other.name), sent], key=lambda o: o.order)
        return [*_lost(s, sent, other.name, channel),
                ("TW511", sent.receiver, s.index(sent.receiver, sent.delivery))]
    return edit


def misdeliver(sent: Sent, other: Agent) -> Edit:
    def edit(s: SpecSession) -> list[Key]:
        s.agents[sent.receiver].messages.remove(sent.delivery)
        other.messages.append(sent.delivery)
        channel = s.channel(TL, sent.receiver)
        at = len(other.messages) - 1
        expected = [*_lost(s, sent, sent.receiver, channel), ("TW511", other.name, at)]
        if sent.kind == "task":
            expected.append(("TW211", other.name, at))
        return expected
    return edit


def reuse_id(first: Sent, second: Sent) -> Edit:
    def edit(s: SpecSession) -> list[Key]:
        second.delivery["content"] = second.delivery["content"].replace(
            f"\nid: {second.id}\n", f"\nid: {first.id}\n", 1)
        # The later delivery is the reuse: later in one conversation, or in the conversation
        # the bundle lists later.
        order = list(s.agents)
        place = max((order.index(o.receiver), s.index(o.receiver, o.delivery), o.receiver)
                    for o in (first, second))
        return [("TW301", place[2], place[1])]
    return edit


def repeat(sent: Sent) -> Edit:
    def edit(s: SpecSession) -> list[Key]:
        conversation = s.agents[sent.receiver].messages
        at = s.index(sent.receiver, sent.delivery) + 1
        conversation.insert(at, copy.deepcopy(sent.delivery))
        expected: list[Key] = [("TW302", sent.receiver, at), ("TW511", sent.receiver, at)]
        if sent.kind == "task":
            expected.append(("TW211", sent.receiver, at))
        return expected
    return edit


def report_answer(sent: Sent) -> Edit:
    def edit(s: SpecSession) -> list[Key]:
        assert sent.answered_by is not None
        text = sent.answered_by["content"]
        target = s.agents[sent.receiver]
        s.leader.messages.append({"role": "user", "content": envelope(
            target.name, "completion", s.allocate("completion", target), text)})
        return [("TW514", TL, len(s.leader.messages) - 1)]
    return edit


def edits(s: SpecSession) -> list[tuple[str, Edit]]:
    """Every single edit of ``s`` whose effect the oracle knows."""
    out: list[tuple[str, Edit]] = []
    subs = [a for a in s.agents.values() if a is not s.leader]
    for sent in s.sent:
        out.append((f"drop {sent.id}", drop(sent)))
        out.append((f"repeat {sent.id}", repeat(sent)))
        if sent.kind == "ask_sub":
            out.append((f"report the answer to {sent.id}", report_answer(sent)))
        if sent.kind in ("task", "message"):
            for other in subs:
                if other.name != sent.receiver and not other.terminated:
                    out.append((f"deliver {sent.id} to {other.name}", misdeliver(sent, other)))
        if sent.kind == "message":
            sent_at = s.index(TL, sent.source)
            for other in subs:
                created = s.index(TL, s.channel(TL, other.name)[0].source)
                ended = [s.index(TL, call) for name, call in s.terminations if name == other.name]
                if other.name != sent.receiver and created < sent_at \
                        and not any(at < sent_at for at in ended):
                    out.append((f"send {sent.id} to {other.name}", retarget(sent, other)))
    for group in [*(s.channel(TL, a.name) for a in subs), *(s.outputs(a.name) for a in subs)]:
        # Messages (not Tasks or Asks, whose order matters on its own) and reports.
        movable = [o for o in group if o.kind in ("message", "output")]
        out.extend((f"swap {a.id} and {b.id}", swap(a, b))
                   for k, a in enumerate(movable) for b in movable[k + 1:])
    allocated = [o for o in s.sent if o.kind in ("task", "message", "output")]
    for k, a in enumerate(allocated):
        for b in allocated[k + 1:]:
            if a.id.rsplit("_", 1)[0] == b.id.rsplit("_", 1)[0]:  # same prefix and abbreviation
                out.append((f"give {b.id} the id {a.id}", reuse_id(a, b)))
    return out


# -- the properties -----------------------------------------------------------------------------


@SESSIONS
@given(spec_sessions(), st.sampled_from([Profile.STRICT, Profile.ASTRION]))
def test_sessions_built_by_the_spec_lint_clean(s: SpecSession, profile: Profile) -> None:
    assert lint(s, profile) == Counter()


@SESSIONS
@given(spec_sessions(), st.data())
def test_one_edit_breaks_what_the_spec_says(s: SpecSession, data: st.DataObject) -> None:
    kinds: dict[str, list[tuple[str, Edit]]] = {}
    for name, edit in edits(s):
        kinds.setdefault(name.split(" ")[0], []).append((name, edit))
    kind = data.draw(st.sampled_from(sorted(kinds)), label="kind")
    name, edit = data.draw(st.sampled_from(kinds[kind]), label="edit")
    event(kind)
    expected = edit(s)
    assume(expected is not None)
    assert lint(s) == Counter(expected), name


# -- a few edits spelled out (the property's oracle, on fixed sessions) -------------------------


def _team() -> tuple[SpecSession, Agent, Agent, Agent]:
    s = SpecSession()
    return (s, s.create(*ROLES[0]), s.create(*ROLES[1]), s.create(*ROLES[2]))


def test_a_message_delivered_to_the_wrong_sub_agent() -> None:
    s, ui, fse, _ui2 = _team()
    note = s.message(ui)
    s.say(ui)
    ui.messages.remove(note.delivery)
    fse.messages.append(note.delivery)
    assert lint(s) == Counter({("TW505", TL, s.index(TL, note.source)): 1,
                               ("TW511", fse.name, len(fse.messages) - 1): 1})


def test_a_message_sent_to_another_receiver_than_the_one_it_reached() -> None:
    s, ui, _fse, ui2 = _team()
    note = s.message(ui)
    s.message(ui2)
    expected = retarget(note, ui2)(s)
    assert expected is not None
    # ui2's Task came before, its Message after: the channel lost the first of two.
    assert expected == [("TW506", TL, s.index(TL, note.source)),
                        ("TW511", ui.name, s.index(ui.name, note.delivery))]
    assert lint(s) == Counter(expected)


def test_swapped_reports_of_two_instances_of_one_role_are_two_channels() -> None:
    s, ui, _fse, ui2 = _team()
    first, second = s.work(ui), s.say(ui2)
    i, j = s.index(TL, first.delivery), s.index(TL, second.delivery)
    s.leader.messages[i], s.leader.messages[j] = s.leader.messages[j], s.leader.messages[i]
    assert lint(s) == Counter()


def test_every_edit_of_a_fixed_session() -> None:
    s, ui, fse, ui2 = _team()
    s.message(ui)
    s.message(ui)
    s.ask_sub(fse)
    s.ask_master(ui2)
    s.ask_other(ui, fse)
    s.work(ui)
    s.say(ui)
    s.terminate(ui2)
    names = [name.split(" ")[0] for name, _ in edits(s)]
    assert set(names) == {"drop", "repeat", "deliver", "send", "swap", "give", "report"}
    for name in [name for name, _ in edits(s)]:
        fresh = copy.deepcopy(s)
        [(_, again)] = [(n, e) for n, e in edits(fresh) if n == name]
        expected = again(fresh)
        assert lint(fresh) == Counter(expected), name


# -- termination excuses only a loss the transcript cannot prove ---------------------------------


@pytest.mark.parametrize("lost", ["task", "message", "ask_sub", "ask_other"])
def test_termination_does_not_excuse_a_proven_delivery(lost: str) -> None:
    s, ui, fse, _ui2 = _team()
    task = s.sent[0]
    first = s.message(ui)
    asked = s.ask_sub(ui)
    _report, peer = s.ask_other(fse, ui)
    sent = {"task": task, "message": first, "ask_sub": asked, "ask_other": peer}[lost]
    ui.messages.remove(sent.delivery)
    s.terminate(ui)
    where = (sent.sender, s.index(sent.sender, sent.source))
    expected = {"task": [("TW506", *where)], "message": [("TW506", *where)],
                "ask_sub": [("TW501", *where)],
                # UI Operator_1 also answered a question it never received (TW-ROUTE-015).
                "ask_other": [("TW501", *where),
                              ("TW502", ui.name, s.index(ui.name, peer.answered_by or {}))]}
    assert lint(s) == Counter(expected[lost])


@pytest.mark.parametrize("lost", ["task", "message"])
def test_termination_excuses_the_loss_of_the_last_messages(lost: str) -> None:
    # The near miss of the bug above: nothing arrived after it, so it may have been queued.
    s, ui, _fse, _ui2 = _team()
    sent = s.sent[0] if lost == "task" else s.message(ui)
    ui.messages.remove(sent.delivery)
    s.terminate(ui)
    assert lint(s) == Counter()


# -- the rules these checks implement -----------------------------------------------------------


def test_every_bundle_rule_has_a_violation_and_a_near_miss_in_a_bundle() -> None:
    from conformance.sources.transcripts import flow, ids

    cases = [*flow.flow_cases(), *ids.id_cases()]
    bundle_rules = {rule.code for rule in REGISTRY if rule.scope == "bundle"}
    assert bundle_rules == {"TW303", "TW501", "TW502", "TW503", "TW505", "TW506", "TW507",
                            "TW508", "TW511", "TW512", "TW513", "TW514"}
    # TW301 and TW606 are checked in one conversation too; the session checks extend them.
    for code in bundle_rules | {"TW301", "TW606"}:
        mine = [c for c in cases if c["description"].startswith(code + " ")
                and isinstance(c.get("input"), dict) and "agents" in c["input"]]
        assert any(code in {e["rule"] for e in c["expected"]} for c in mine), code
        assert any(c["description"].startswith(code + " near miss")
                   and code not in {e["rule"] for e in c["expected"]} for c in mine), code
