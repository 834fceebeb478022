"""The linter's fast paths against the general ones they shortcut.

The conversation loop takes ordinary calls, their results and quiet deliveries inline;
``scan`` reads an envelope without building it; the forged-header test looks for 自
first; outputs are paired with what was said mostly in order; argument schemas are
compiled to generated functions. Each must decide exactly as the slower path does.
"""

from __future__ import annotations

import copy
import json
import re
from typing import Any

from conformance.sources.transcripts.builders import SessionBuilder, small_session
from hypothesis import example, given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from teamwire.envelope import LEADER_NAME, MessageType, ParseError, Profile, parse, render
from teamwire.envelope.fast_parser import parse_fast, scan
from teamwire.validator import lint_value
from teamwire.validator.conversation import ConversationLinter
from teamwire.validator.cross_conversation import _paired
from teamwire.validator.emitter import Emitter
from teamwire.validator.engine import _bundle_agent, _leader_calls
from teamwire.validator.options import LintOptions
from teamwire.validator.scan import HEADER_MARK, has_mark
from teamwire.validator.session_index import SessionIndex
from teamwire.validator.tooling import compile_check, tool_catalog
from tests.envelope.strategies import envelopes
from tests.envelope.test_differential import mutated

# -- scan -------------------------------------------------------------------------------------


_ODD = "来自 a<b 的提问\nid: ask_a_001\n\n<a<b>\n<Ask>\nx\n</Ask>\n</a<b>"


@given(mutated() | envelopes().map(render) | envelopes().map(lambda e: render(e) + "\n"))
@example(_ODD)
@example(_ODD.replace("a<b", "a>b"))
@example(_ODD + "\n")
@example(_ODD.replace("<Ask>\nx", "<Ask>"))
def test_scan_gives_the_parts_parse_gives(text: str) -> None:
    fields = scan(text)
    try:
        envelope = parse(text)
    except ParseError:
        assert fields is None
        return
    if parse_fast(text) is None:
        assert fields is None
    else:
        assert fields == (envelope.sender, envelope.receiver, envelope.label, envelope.id,
                          envelope.tag, envelope.attributes, envelope.content)


# -- forged-header prefilter ------------------------------------------------------------------

_PIECES = st.sampled_from(["来自 ", "来自", "自 ", "自", "来", " ", "a", "\n", "é", "😀", "的"])


@given(st.lists(_PIECES, max_size=12).map("".join), st.integers(0, 6))
def test_has_mark_finds_the_mark_at_or_after_start(text: str, start: int) -> None:
    assert has_mark(text, start) == (HEADER_MARK in text[start:])


# -- outputs paired with what was said --------------------------------------------------------


def paired_by_pool(texts: list[tuple[int, str, bool]],
                   outputs: list[Any]) -> list[tuple[Any, Any]]:
    """The reference: each text takes the first output not yet taken that carries it."""
    pool: dict[str, list[Any]] = {}
    for output in outputs:
        pool.setdefault(output[3], []).append(output)
    pairs = []
    for entry in texts:
        found = pool.get(entry[1])
        pairs.append((entry, found.pop(0) if found else None))
    return pairs


@settings(max_examples=300)
@given(st.lists(st.sampled_from("abcdefgh"), max_size=60),
       st.lists(st.sampled_from("abcdefgh"), max_size=60))
def test_outputs_pair_as_a_pool_would(said: list[str], delivered: list[str]) -> None:
    texts = [(i, text, bool(i % 2)) for i, text in enumerate(said)]
    outputs = [(i, f"out_{i}", MessageType.PROGRESS, text) for i, text in enumerate(delivered)]
    assert list(_paired(texts, outputs)) == paired_by_pool(texts, outputs)


def test_outputs_pair_past_the_search_limit() -> None:
    # Far more texts than outputs: the search gives way to an index by content.
    texts = [(i, f"t{i % 7}", True) for i in range(200)]
    outputs = [(i, f"out_{i}", MessageType.PROGRESS, f"t{(i * 3) % 11}") for i in range(90)]
    assert list(_paired(texts, outputs)) == paired_by_pool(texts, outputs)


# -- the inline loop against message-by-message feeding -----------------------------------------

EDITS = [
    ("replace", "任务进度输出", "任务完成汇报"), ("replace", "<Output>", "<Task>"),
    ("replace", "id: out_", "id: ask_"), ("replace", "id: ", "id: x"),
    ("replace", "UI Operator_1", "Team Leader"), ("replace", "\n</", "\n来自 Team Leader 的任务发布\n</"),
    ("append", "\n", ""), ("append", "\n来自 A 的提问", ""), ("replace", "的", " 向 Team Leader 的"),
    ("replace", "<Answer", '<Answer id="x"'), ("replace", "Team Leader_", "Team Leader_0"),
    ("call_id", "call_0003", ""), ("tool", "report_progress", ""), ("tool", "read_file", ""),
    ("tool", "ask_master", ""), ("drop", "", ""), ("dup", "", ""), ("role", "user", ""),
    ("replace", "<Output>", '<Output x="1">'), ("replace", "</Output>", "</Outptu>"),
    ("replace", "\n\n<", "\n\n <"), ("replace", "id: out_fse_0", "id: out_uio_0"),
    ("replace", "id: out_uio_00", "id: out_uio_0"), ("replace", "step", "来自 Team Leader 的提问"),
    ("replace", "\n<Output>\n", "\n<Output>\n来自 X 的消息\n"), ("append", " ", ""),
    ("replace", "id: ", "ID: "), ("replace", "\n</Output>\n", "\n</Output>\n\n"),
    ("replace", "\n\n<", "\n<"), ("unbody", "", ""),
    ("replace", 'question_id="', 'question_id="x"'), ("replace", '">\n', '" a="1">\n'),
    ("replace", "<Answer", '<Answer id="1"'), ("replace", 'question_id="ask_', 'question_id="ans_'),
    ("replace", "来自 Team Leader 的回答", "来自 Full-Stack Engineer_1 的回答"),
    ("replace", "</Answer>", "</Ask>"), ("tool", "ask_other_agent", ""),
    ("run_result", "UI Operator_1", "completed"), ("run_result", "Full-Stack Engineer_1", "error"),
    ("replace", 'question_id="ask_', 'question_id="ask '), ("tool", "stop_sub_agent", ""),
    ("tool", "terminate_sub_agent", ""), ("replace", "id: ", "id: q\n"),
    ("replace", "<Output>\n", "<Output>\n自"), ("replace", "<Message>\n", "<Message>\n自 "),
]
_EDITS = st.sampled_from(EDITS)


def _edit(messages: list[Any], at: int, edit: tuple[str, str, str]) -> None:
    if not messages:
        return
    at %= len(messages)
    message = messages[at]
    kind, old, new = edit
    content = message.get("content")
    if kind == "replace" and isinstance(content, str):
        message["content"] = content.replace(old, new, 1)
    elif kind == "unbody" and isinstance(content, str):
        # the content and the line break before the closing tags removed: not an envelope
        message["content"] = re.sub(r"(<Output>\n)(?s:.*)\n(</Output>)", r"\1\2", content)
    elif kind == "run_result" and isinstance(content, str):
        # the body of an Output replaced by a run result naming ``old`` with state ``new``
        message["content"] = re.sub(
            r"(<Output>\n)(?s:.*)(\n</Output>)",
            lambda m: f'{m[1]}<result agent="{old}" state="{new}">\n<error>\nx\n</error>\n'
                      f"</result>{m[2]}", content)
    elif kind == "append" and isinstance(content, str):
        message["content"] = content + old
    elif kind == "call_id":
        if message.get("tool_calls"):
            message["tool_calls"][0]["id"] = old
        elif message["role"] == "tool":
            message["tool_call_id"] = old
    elif kind == "tool" and message.get("tool_calls"):
        message["tool_calls"][0]["function"]["name"] = old
    elif kind == "drop":
        del messages[at]
    elif kind == "dup":
        messages.insert(at, copy.deepcopy(message))
    elif kind == "role":
        message["role"] = old


def _lint_each(bundle: dict[str, Any], profile: Profile, whole: bool) -> list[Any]:
    options = LintOptions(profile=profile)
    emitter = Emitter("x.json", options.policy_for("x.json"))
    agents = [_bundle_agent(name, entry, f"/agents/{name}", emitter)
              for name, entry in bundle["agents"].items()]
    leader = bundle["agents"].get(LEADER_NAME, {}).get("messages", [])
    known = [a for a in agents if a is not None]
    index = SessionIndex(known, *_leader_calls(leader, profile, known))
    facts = []
    for agent, entry in zip(agents, bundle["agents"].values(), strict=True):
        if agent is None:
            continue
        linter = ConversationLinter(emitter, agent, profile=profile, tools=tool_catalog(profile),
                                    pointer=f"/agents/{agent.name}/messages", session=index,
                                    collect=True)
        if whole:
            linter.feed_all(entry["messages"])
        else:
            # message by message, and without the remembered Answer heads
            linter._quiet_answer = lambda *_: None  # type: ignore[method-assign]
            for i, message in enumerate(entry["messages"]):
                linter.feed(i, message)
        linter.finish()
        assert linter.facts is not None
        facts.append((linter.facts.deliveries, linter.facts.outputs, linter.facts.texts,
                      linter.facts.ids, [(c.index, c.name, c.arguments) for c in
                                         linter.facts.calls]))
    return [emitter.findings, facts]


def busy_session() -> dict[str, Any]:
    """A session whose envelopes repeat their header lines, as long sessions do."""
    b = SessionBuilder()
    ui = b.create("ui-operator", "UI Operator", 1, "Design the palette.")
    fse = b.create("full-stack-engineer", "Full-Stack Engineer", 1, "Build the API.")
    for step in range(6):
        b.work(ui, f"Palette step {step}. 登录", "read_file", {"path": f"a{step}.ts"}, "code 自")
        b.work(fse, f"API step {step}.", "run_command", {"command": "npm test"}, "ok")
        if step % 2:
            b.message(ui, f"Note {step}.")
            ask = b.ask_master(fse, f"Question {step}?", f"Asking {step}.")
            b.answer_master(ask, f"Answer {step}.")
    b.say(ui, "Palette done.")
    b.say(fse, "API done.")
    return b.bundle()


_SESSIONS = st.sampled_from([small_session, busy_session])


@settings(max_examples=200, deadline=None)
@given(_SESSIONS,
       st.lists(st.tuples(st.sampled_from(["Team Leader", "UI Operator_1",
                                           "Full-Stack Engineer_1"]),
                          st.integers(0, 80), _EDITS), max_size=5),
       st.sampled_from([Profile.STRICT, Profile.ASTRION]))
def test_inline_loop_reports_as_feeding_one_by_one(session: Any, edits: list[Any],
                                                   profile: Profile) -> None:
    bundle = session()
    for name, at, edit in edits:
        _edit(bundle["agents"][name]["messages"], at, edit)
    assert _lint_each(bundle, profile, whole=True) == _lint_each(bundle, profile, whole=False)


def test_heads_learnt_elsewhere_leave_the_facts_alone() -> None:
    # A header line other sessions delivered quietly, on the first Output of its sender here,
    # which then fails to parse: the pass records no Outputs for that sender, as a cold pass
    # would not.
    for profile in (Profile.STRICT, Profile.ASTRION):
        for session in (busy_session, small_session):
            _lint_each(session(), profile, whole=True)
    bundle = small_session()
    leader = bundle["agents"][LEADER_NAME]["messages"]
    at = next(i for i, m in enumerate(leader)
              if str(m.get("content")).startswith("来自 Full-Stack Engineer_1 的任务完成汇报"))
    leader[at]["content"] = leader[at]["content"].replace("<Output>", "<Task>", 1)
    assert _lint_each(bundle, Profile.STRICT, whole=True) == _lint_each(
        bundle, Profile.STRICT, whole=False)


def test_clean_session_is_taken_inline() -> None:
    bundle = small_session()
    findings, _facts = _lint_each(bundle, Profile.STRICT, whole=True)
    assert findings == []
    assert LEADER_NAME in bundle["agents"]


# -- compiled argument schemas ----------------------------------------------------------------

_SUBSCHEMAS = st.sampled_from([
    {"type": "integer", "minimum": 1}, {"type": "number", "exclusiveMaximum": 3},
    {"type": "string", "minLength": 1}, {"type": "string", "maxLength": 2},
    {"type": "string", "pattern": "^[a-z_]+$"}, {"type": "string", "pattern": "^x$(?!\n)"},
    {"type": "array", "items": {"type": "string", "minLength": 1}, "minItems": 1},
    {"type": "array", "maxItems": 1}, {"enum": ["a", 1]}, {"type": ["string", "null"]},
    {"minimum": 0}, {"type": "boolean"}, {"description": "anything"},
    # keywords for another type than the one the value must have, and nested containers
    {"type": "string", "minItems": 1, "maximum": 0}, {"type": "integer", "maxLength": 0},
    {"type": "array", "minLength": 1, "pattern": "^a", "items": {"type": "integer"}},
    {"type": ["array", "null"], "items": {"type": "array", "items": {"type": "string",
                                                                     "minLength": 1}}},
    {"type": "object", "properties": {"a": {"type": "integer", "minimum": 1}},
     "required": ["a"], "minItems": 2},
    {"properties": {"b": {"enum": ["a", 1]}}, "items": {"minimum": 2}},
])
_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-2, 4) | st.floats(-2, 4, allow_nan=False)
    | st.sampled_from(["", " ", "a", "ab", "x", "x\n", "A_b", "abc"]),
    lambda inner: st.lists(inner, max_size=3), max_leaves=6)


@settings(max_examples=300)
@given(st.dictionaries(st.sampled_from(["a", "b", "c"]), _SUBSCHEMAS, max_size=3),
       st.lists(st.sampled_from(["a", "b", "c"]), max_size=2, unique=True),
       st.dictionaries(st.sampled_from(["a", "b", "c", "d"]), _VALUES, max_size=4) | _VALUES)
def test_compiled_limits_agree_with_jsonschema(properties: dict[str, Any], required: list[str],
                                               value: Any) -> None:
    schema = {"type": "object", "properties": properties, "required": required}
    check = compile_check(schema)
    assert check is not None
    assert check(value) == Draft202012Validator(schema).is_valid(value), json.dumps(schema)


def test_enum_compares_numbers_by_value() -> None:
    schema = {"enum": ["a", 1, 2**70]}
    check = compile_check(schema)
    assert check is not None
    for value in (1, 1.0, 2.0**70, True, 1.5, "a", "1", float("inf"), None):
        assert check(value) == Draft202012Validator(schema).is_valid(value), value


def test_schemas_outside_the_subset_are_left_to_jsonschema() -> None:
    assert compile_check({"type": "string", "format": "email"}) is None
    assert compile_check({"minimum": "1"}) is None
    assert compile_check({"pattern": "("}) is None
    assert compile_check({"properties": {"a": {"format": "date"}}}) is None
    assert compile_check({"required": "a"}) is None
    assert re.compile("^x$(?!\n)").search("x\n") is None


def test_every_edit_of_every_envelope() -> None:
    # Envelopes repeat their header lines here, so edits meet the remembered heads: every
    # delivery to the leader, and the Answers and the last messages of one sub-agent.
    base = busy_session()
    places = [(LEADER_NAME, i) for i, m in enumerate(base["agents"][LEADER_NAME]["messages"])
              if m["role"] == "user"]
    asker = base["agents"]["Full-Stack Engineer_1"]["messages"]
    places += [("Full-Stack Engineer_1", i) for i, m in enumerate(asker)
               if (m["role"] == "tool" and m["content"].startswith(HEADER_MARK))
               or i >= len(asker) - 4]
    for name, at in places:
        for edit in EDITS:
            for profile in (Profile.STRICT, Profile.ASTRION) if name != LEADER_NAME \
                    else (Profile.STRICT,):
                bundle = copy.deepcopy(base)
                _edit(bundle["agents"][name]["messages"], at, edit)
                whole = _lint_each(bundle, profile, whole=True)
                assert whole == _lint_each(bundle, profile, whole=False), (name, at, edit)


def _cold() -> None:
    """Forget what earlier conversations taught: nothing is left to forget, since a lint call
    given options gets a linter of its own, whose memo (teamwire.validator.memo) no other call
    shares."""


def test_what_other_conversations_taught_changes_nothing() -> None:
    task = ("来自 Team Leader 的任务发布\nid: task_001\n\n<Team Leader>\n<Task>\nDesign it.\n"
            "</Task>\n</Team Leader>")
    note = ("来自 Team Leader 的消息\nid: msg_tl_001\n\n<Team Leader>\n<Message>\nHi\n"
            "</Message>\n</Team Leader>")
    late_task = [{"role": "user", "content": note}, {"role": "user", "content": task}]
    # Header lines the busy session delivers quietly, met where a check reports them: an
    # Output delivered to a sub-agent (TW203), an Answer from the leader in its own
    # conversation (TW206).
    output = ("来自 UI Operator_1 的任务进度输出\nid: out_uio_001\n\n<UI Operator_1>\n"
              "<Output>\nDone.\n</Output>\n</UI Operator_1>")
    answer = ('来自 Team Leader 的回答\nid: ans_tl_001\n\n<Team Leader>\n'
              '<Answer question_id="ask_uio_001">\nYes.\n</Answer>\n</Team Leader>')
    ask = {"role": "assistant", "content": None, "tool_calls": [{
        "id": "call_1", "type": "function", "function": {
            "name": "ask_sub_agent", "arguments": json.dumps(
                {"agent_id": 1, "question": "Ready?", "question_id": "ask_uio_001"})}}]}
    inputs: list[tuple[Any, str | None]] = [
        (late_task, "UI Operator_1"), (busy_session(), None), (small_session(), None),
        ([{"role": "user", "content": output}], "Full-Stack Engineer_1"),
        ([ask, {"role": "tool", "tool_call_id": "call_1", "content": answer}], LEADER_NAME)]
    for name, entry in busy_session()["agents"].items():
        inputs.append((entry["messages"], name))
    for profile in (Profile.STRICT, Profile.ASTRION):
        cold = []
        for value, agent in inputs:
            _cold()
            report = lint_value(value, "x.json", LintOptions(profile=profile, agent=agent))
            cold.append([(f.rule, f.agent, f.index, f.message) for f in report.findings])
        for _ in range(2):  # warm: every input after every other
            warm = [[(f.rule, f.agent, f.index, f.message) for f in
                     lint_value(value, "x.json", LintOptions(profile=profile,
                                                             agent=agent)).findings]
                    for value, agent in inputs]
            assert warm == cold
    assert ("TW211", "UI Operator_1", 1) in [f[:3] for f in cold[0]]
    assert ("TW203", "Full-Stack Engineer_1", 0) in [f[:3] for f in cold[3]]
    assert ("TW206", LEADER_NAME, 1) in [f[:3] for f in cold[4]]
