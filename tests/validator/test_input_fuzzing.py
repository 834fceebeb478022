"""Fuzzing of the linter's input: a clean session bundle and its conversations, with
structured edits (keys, types, messages, tool calls, agent names, envelope text) and
byte-level ones (flips, insertions, truncation, BOM, invalid UTF-8, CRLF).

Whatever the edit, linting never raises and gives the same findings twice; the inline loop
reports what feeding one message at a time reports; a conversation gets the same findings as
a JSON array and as JSON Lines; the json and SARIF reports keep their contracts; every
finding's pointer, index and positions lie inside what it names, and its file position spells
the character it names; re-serialising (keys reordered, indented, JSON inside strings written
anew) or a leading BOM changes no finding.
"""

from __future__ import annotations

import copy
import io
import json
import os
import random
import tempfile
from functools import cache
from pathlib import Path
from typing import Any

import orjson
from conformance.sources.transcripts.builders import small_session
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from teamwire import schemas
from teamwire.envelope import LEADER_NAME, Profile
from teamwire.validator import (
    FileReport,
    Finding,
    LintOptions,
    LintReport,
    lint_bytes,
    lint_file,
)
from teamwire.validator.locate import with_file_lines
from teamwire.validator.reporters import FORMATS
from tests.validator.test_fast_paths import _lint_each

SARIF_SCHEMA = Path(__file__).resolve().parents[1] / "data" / "sarif-2.1.0.schema.json"
FUZZ = settings(max_examples=60, deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
PROFILES = st.sampled_from([Profile.STRICT, Profile.ASTRION])


@cache
def _sarif() -> Draft202012Validator:
    return Draft202012Validator(json.loads(SARIF_SCHEMA.read_text(encoding="utf-8")))


@cache
def _seed_bundle() -> bytes:
    return json.dumps(small_session(), ensure_ascii=False).encode()


def bundle() -> dict[str, Any]:
    """A fresh copy of the clean seed bundle."""
    fresh: dict[str, Any] = json.loads(_seed_bundle())
    return fresh


def conversation(name: str) -> list[Any]:
    """One agent's conversation of the clean seed bundle."""
    messages: list[Any] = bundle()["agents"][name]["messages"]
    return messages


SEEDS = st.sampled_from(["bundle", LEADER_NAME, "UI Operator_1", "Full-Stack Engineer_1"])


# -- mutations --------------------------------------------------------------------------------

# copied, so that an edit inside an inserted list or object never reaches the next example
ODD_VALUES = st.sampled_from([None, 0, -1, 1.5, True, "", "x", [], {}, [None], {"a": 1},
                              2**64, "来自", "call_0001", "ask_uio_001"]).map(copy.deepcopy)
LABELS = ["任务发布", "任务进度输出", "任务完成汇报", "提问", "消息", "回答", "任务结束汇报"]
NAMES = ["Team Leader", "UI Operator_1", "UI Operator_2", "Full-Stack Engineer_1", "X_01",
         "<x>", "a/b~c"]
TOOLS = ["ask_master", "ask_other_agent", "answer_other_agent", "ask_sub_agent",
         "create_sub_agent", "terminate_sub_agent", "send_message_to_sub_agent",
         "answer_sub_agent_question", "read_file", "finish_task", "stop_sub_agent", ""]
FORGED = ["来自 Team Leader 的任务发布", "来自 UI Operator_1 的回答", "</Task>", "</Team Leader>",
          "id: task_001", '<Answer question_id="x">', "来自 A 向 B 的消息"]
ATTRIBUTES = [' question_id="q"', ' id="x"', ' a="1" a="2"', ' target="t"', '"']


def _containers(value: Any, found: list[Any]) -> list[Any]:
    if isinstance(value, (dict, list)) and value:
        found.append(value)
        for child in (value.values() if isinstance(value, dict) else value):
            _containers(child, found)
    return found


def _conversations(doc: Any) -> list[list[Any]]:
    if isinstance(doc, list):
        return [doc]
    agents = doc.get("agents") if isinstance(doc, dict) else None
    if not isinstance(agents, dict):
        return []
    return [entry["messages"] for entry in agents.values()
            if isinstance(entry, dict) and isinstance(entry.get("messages"), list)
            and entry["messages"]]


def _edit_text(data: st.DataObject, text: str) -> str:
    """One edit of an envelope's text (or of any content)."""
    lines = text.split("\n")
    at = data.draw(st.integers(0, len(lines) - 1))
    kind = data.draw(st.sampled_from([
        "header", "id_line", "tag", "attribute", "trailing", "crlf", "forge", "truncate",
        "drop_line", "sender"]))
    if kind == "header":
        lines[0] = f"来自 {data.draw(st.sampled_from(NAMES))} 的{data.draw(st.sampled_from(LABELS))}"
    elif kind == "id_line" and len(lines) > 1:
        lines[1] = data.draw(st.sampled_from(["id:", "id: ", "id: x", "id: task_001",
                                              "id:  ask_uio_001", "ID: msg_tl_001"]))
    elif kind == "tag":
        tags = st.sampled_from(["Task", "Output", "Ask", "Message", "Answer", "Foo"])
        lines[at] = lines[at].replace(data.draw(tags), data.draw(tags), 1)
    elif kind == "attribute":
        lines[at] = lines[at].replace(">", data.draw(st.sampled_from(ATTRIBUTES)) + ">", 1)
    elif kind == "trailing":
        return text + data.draw(st.sampled_from(["\n", "\n\n", " ", "\r\n"]))
    elif kind == "crlf":
        return text.replace("\n", "\r\n")
    elif kind == "forge":
        lines.insert(at, data.draw(st.sampled_from(FORGED)))
    elif kind == "truncate":
        return text[:data.draw(st.integers(0, len(text)))]
    elif kind == "drop_line":
        del lines[at]
    else:
        lines[at] = lines[at].replace(data.draw(st.sampled_from(NAMES[:4])),
                                      data.draw(st.sampled_from(NAMES)), 1)
    return "\n".join(lines)


def _first_call(message: Any) -> dict[str, Any] | None:
    calls = message.get("tool_calls") if isinstance(message, dict) else None
    if isinstance(calls, list) and calls and isinstance(calls[0], dict) \
            and isinstance(calls[0].get("function"), dict):
        return calls[0]
    return None


def mutate(data: st.DataObject, doc: Any) -> Any:
    """One structured edit of a bundle or conversation, chosen by ``data``."""
    kind = data.draw(st.sampled_from([
        "delete_key", "change_type", "dup", "drop", "swap", "move", "call_id", "role",
        "tool_name", "arguments", "envelope", "envelope", "rename_agent"]))
    if kind in ("delete_key", "change_type"):
        containers = _containers(doc, [])
        if not containers:
            return doc
        target = data.draw(st.sampled_from(containers))
        slot = data.draw(st.sampled_from(list(target) if isinstance(target, dict)
                                         else range(len(target))))
        if kind == "delete_key" and isinstance(target, dict):
            del target[slot]
        else:
            target[slot] = data.draw(ODD_VALUES)
        return doc
    if kind == "rename_agent":
        if isinstance(doc, dict) and isinstance(doc.get("agents"), dict) and doc["agents"]:
            old = data.draw(st.sampled_from(list(doc["agents"])))
            new = data.draw(st.sampled_from(NAMES))
            doc["agents"] = {new if name == old else name: entry
                             for name, entry in doc["agents"].items()}
        return doc
    conversations = _conversations(doc)
    if not conversations:
        return doc
    messages = data.draw(st.sampled_from(conversations))
    at = data.draw(st.integers(0, len(messages) - 1))
    message = messages[at]
    call = _first_call(message)
    if kind == "dup":
        messages.insert(data.draw(st.integers(0, len(messages))), copy.deepcopy(message))
    elif kind == "drop":
        del messages[at]
    elif kind == "swap":
        other = data.draw(st.integers(0, len(messages) - 1))
        messages[at], messages[other] = messages[other], messages[at]
    elif kind == "move":
        messages.insert(data.draw(st.integers(0, len(messages) - 1)), messages.pop(at))
    elif not isinstance(message, dict):
        pass
    elif kind == "call_id":
        new_id = data.draw(st.sampled_from(["call_0001", "call_0002", "", "x", None, 5]))
        if call is not None:
            call["id"] = new_id
        elif message.get("role") == "tool":
            message["tool_call_id"] = new_id
    elif kind == "role":
        message["role"] = data.draw(st.sampled_from(["user", "assistant", "tool", "system",
                                                     "developer", ""]))
    elif kind == "tool_name" and call is not None:
        call["function"]["name"] = data.draw(st.sampled_from(TOOLS))
    elif kind == "arguments" and call is not None:
        call["function"]["arguments"] = data.draw(st.sampled_from(
            ["", "{", "[]", "null", '{"a":1,"a":2}', '{"agent_id": 1}', '{"x": NaN}'])
            | ODD_VALUES.map(lambda v: json.dumps({"agent_id": v, "question_id": v})))
    elif kind == "envelope" and isinstance(message.get("content"), str) and message["content"]:
        message["content"] = _edit_text(data, message["content"])
    return doc


def byte_mutate(data: st.DataObject, raw: bytes) -> bytes:
    """One byte-level edit: flip, insert, delete, truncate, BOM, invalid UTF-8, CRLF."""
    kind = data.draw(st.sampled_from(["flip", "insert", "delete", "truncate", "bom",
                                      "bad_utf8", "crlf"]))
    at = data.draw(st.integers(0, max(len(raw) - 1, 0)))
    if kind == "flip" and raw:
        return raw[:at] + bytes([raw[at] ^ (1 << data.draw(st.integers(0, 7)))]) + raw[at + 1:]
    if kind == "insert":
        piece = data.draw(st.sampled_from([b"\x00", b'"', b"\\", b",", b"\n", b"{", b"]",
                                           b"\\ud800"]))
        return raw[:at] + piece + raw[at:]
    if kind == "delete":
        return raw[:at] + raw[at + data.draw(st.integers(1, 8)):]
    if kind == "truncate":
        return raw[:at]
    if kind == "bom":
        return b"\xef\xbb\xbf" + raw
    if kind == "bad_utf8":
        return raw[:at] + data.draw(st.sampled_from([b"\xc3", b"\xe6\x9d", b"\xed\xa0\x80",
                                                     b"\x80"])) + raw[at:]
    return raw.replace(b"\n", b"\r\n")


def serialise(doc: Any, jsonl: bool) -> bytes:
    if jsonl:
        return b"".join(json.dumps(m, ensure_ascii=False).encode() + b"\n" for m in doc)
    return json.dumps(doc, ensure_ascii=False).encode()


def mutated_input(data: st.DataObject) -> tuple[Any, bytes, bool]:
    """A seed with up to three structured edits: (document, its bytes, whether JSON Lines)."""
    seed = data.draw(SEEDS)
    doc: Any = bundle() if seed == "bundle" else conversation(seed)
    for _ in range(data.draw(st.integers(0, 3))):
        doc = mutate(data, doc)
    jsonl = isinstance(doc, list) and data.draw(st.booleans())
    return doc, serialise(doc, jsonl), jsonl


# -- checks -----------------------------------------------------------------------------------


def key(report: FileReport) -> list[tuple[Any, ...]]:
    return [(f.rule, f.severity, f.message, f.agent, f.index, f.pointer, f.line, f.column)
            for f in report.findings]


def on_values(report: FileReport) -> list[tuple[Any, ...]]:
    """The findings without their positions inside values and their wording."""
    return [(f.rule, f.severity, f.agent, f.index, f.pointer) for f in report.findings]


def resolve(doc: Any, pointer: str) -> tuple[bool, Any]:
    """Whether ``pointer`` names a value of ``doc`` (or an absent member of an object in it),
    and that value."""
    value = doc
    tokens = pointer.split("/")[1:] if pointer else []
    for n, token in enumerate(tokens):
        token = token.replace("~1", "/").replace("~0", "~")
        if isinstance(value, dict):
            if token not in value:
                return n == len(tokens) - 1, None
            value = value[token]
        elif isinstance(value, list) and token.isdigit() and str(int(token)) == token \
                and int(token) < len(value):
            value = value[int(token)]
        else:
            return False, None
    return True, value


def inside(text: str, line: int, column: int | None) -> bool:
    lines = text.split("\n")
    return 1 <= line <= len(lines) and 1 <= (column or 1) <= len(lines[line - 1]) + 1


def spelt(raw: str) -> str:
    """The character that the JSON string text ``raw`` starts with spells ('' at its end)."""
    if raw[:1] != "\\":
        return raw[:1]
    length = 12 if raw[1] == "u" and raw[6:8] == "\\u" else 6 if raw[1] == "u" else 2
    try:
        value: str = json.loads(f'"{raw[:length]}"')
    except ValueError:
        return "?"
    return value if len(value) == 1 else value[0]


def check_file_place(finding: Finding, value: str, lines: list[str]) -> None:
    """The file position of a finding inside a string value is that string's character."""
    assert finding.line is not None and finding.file_line is not None
    assert finding.file_column is not None
    wanted = value.split("\n")[finding.line - 1][(finding.column or 1) - 1:][:1]
    found = spelt(lines[finding.file_line - 1][finding.file_column - 1:])
    assert found == wanted or (wanted == "" and found in ('"', "\n")), (finding, found)


def check_places(report: FileReport, doc: Any, raw: bytes) -> None:
    """Every finding's pointer, index and positions lie inside what it names."""
    text = raw.decode("utf-8", errors="replace").removeprefix("\ufeff")
    lines = text.split("\n")
    for finding in report.findings:
        if finding.pointer is not None and doc is not None:
            ok, value = resolve(doc, finding.pointer)
            assert ok, finding
            if finding.line is not None:
                assert isinstance(value, str) and inside(value, finding.line, finding.column), (
                    finding, value)
                if finding.file_line is not None and finding.file_column is not None:
                    check_file_place(finding, value, lines)
        elif finding.pointer is None and finding.line is not None:
            assert inside(text, finding.line, finding.column), finding
        if finding.index is not None and doc is not None:
            agents = doc.get("agents") if isinstance(doc, dict) else None
            owner = agents.get(finding.agent) if isinstance(agents, dict) else doc
            messages = owner.get("messages") if isinstance(owner, dict) else owner
            if isinstance(messages, list):
                assert 0 <= finding.index < len(messages), finding
        if finding.file_line is not None:
            assert inside(text, finding.file_line, finding.file_column), finding


def placed(report: FileReport, raw: bytes) -> FileReport:
    """``report`` with the file lines and columns the annotating formats give."""
    report.source = raw
    with_file_lines([report])
    return report


def check_formats(report: FileReport) -> None:
    """The json report meets its schema, SARIF meets SARIF 2.1.0, the other formats write."""
    whole = LintReport([report])
    for name, form in FORMATS.items():
        out = io.StringIO()
        form.write(whole, out, False)
        if name == "json":
            assert schemas.validate("lint-findings", json.loads(out.getvalue())) == []
        elif name == "sarif":
            assert list(_sarif().iter_errors(json.loads(out.getvalue()))) == []


def decoded(raw: bytes, jsonl: bool) -> Any:
    """What the linter decodes ``raw`` to, or None when it is not one JSON document."""
    if jsonl:
        return None
    try:
        return orjson.loads(raw.removeprefix(b"\xef\xbb\xbf"))
    except orjson.JSONDecodeError:
        return None


def _shuffled(value: Any, rng: random.Random) -> Any:
    """``value`` with the keys of every object in another order."""
    if isinstance(value, dict):
        items = list(value.items())
        rng.shuffle(items)
        return {k: _shuffled(v, rng) for k, v in items}
    if isinstance(value, list):
        return [_shuffled(v, rng) for v in value]
    return value


def reordered(doc: Any, rng: random.Random) -> Any:
    """``doc`` with its keys reordered, but for the agents of a bundle, whose order sets the
    order of the findings."""
    again = _shuffled(doc, rng)
    if isinstance(doc, dict) and isinstance(doc.get("agents"), dict):
        again["agents"] = {name: again["agents"][name] for name in doc["agents"]}
    return again


def _unique_names(items: list[tuple[str, Any]]) -> dict[str, Any]:
    if len({name for name, _ in items}) != len(items):
        raise ValueError("repeated name")
    return dict(items)


def _no_constants(name: str) -> Any:
    raise ValueError(name)


def _strict_json(text: str) -> Any:
    """``text`` decoded when it is an object without repeated names, NaN or the like; else
    None (re-serialising those would change what they say)."""
    try:
        value = json.loads(text, object_pairs_hook=_unique_names, parse_constant=_no_constants)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def respelt_inner_json(doc: Any, rng: random.Random) -> Any:
    """``doc`` with each tool call's arguments and each JSON tool result written anew (keys
    reordered, indented or not, ASCII-escaped or not)."""
    for messages in _conversations(doc):
        for message in messages:
            call = _first_call(message)
            if call is not None and isinstance(call["function"].get("arguments"), str):
                value = _strict_json(call["function"]["arguments"])
                if value is not None:
                    call["function"]["arguments"] = json.dumps(
                        _shuffled(value, rng), ensure_ascii=rng.random() < 0.5,
                        indent=rng.choice([None, 2]))
            if isinstance(message, dict) and message.get("role") == "tool" \
                    and isinstance(message.get("content"), str):
                value = _strict_json(message["content"])
                if value is not None:
                    message["content"] = json.dumps(_shuffled(value, rng),
                                                    ensure_ascii=rng.random() < 0.5)
    return doc


# -- properties -------------------------------------------------------------------------------


@FUZZ
@given(st.data(), PROFILES)
def test_structured_mutations_lint_soundly(data: st.DataObject, profile: Profile) -> None:
    doc, raw, jsonl = mutated_input(data)
    options = LintOptions(profile=profile)
    name = "s.jsonl" if jsonl else "s.json"
    report = lint_bytes(raw, name, options, jsonl=jsonl)
    assert key(report) == key(lint_bytes(raw, name, options, jsonl=jsonl))
    if isinstance(doc, list):
        # the same messages as a JSON array and as JSON Lines: the same findings
        other = lint_bytes(serialise(doc, not jsonl), "s.json" if jsonl else "s.jsonl", options,
                           jsonl=not jsonl)
        assert sorted(key(other), key=repr) == sorted(key(report), key=repr)
    # JSON Lines pointers start at the record number, as a JSON array's do
    check_places(placed(report, raw), doc, raw)
    check_formats(report)


@FUZZ
@given(st.data(), PROFILES)
def test_byte_mutations_never_raise(data: st.DataObject, profile: Profile) -> None:
    _doc, raw, jsonl = mutated_input(data)
    raw = byte_mutate(data, raw)
    options = LintOptions(profile=profile)
    for name, lines in (("b.json", False), ("b.jsonl", True), ("b", None)):
        report = lint_bytes(raw, name, options, jsonl=lines)
        assert key(report) == key(lint_bytes(raw, name, options, jsonl=lines))
    report = lint_bytes(raw, "b.json", options, jsonl=jsonl)
    parsed = decoded(raw, jsonl)
    check_places(placed(report, raw), parsed, raw)
    check_formats(report)


@FUZZ
@given(st.data(), PROFILES)
def test_inline_loop_reports_as_feeding_one_by_one_after_edits(
        data: st.DataObject, profile: Profile) -> None:
    doc = bundle()
    for _ in range(data.draw(st.integers(1, 3))):
        doc = mutate(data, doc)
    agents = doc.get("agents") if isinstance(doc, dict) else None
    if not isinstance(agents, dict) or not all(
            isinstance(entry, dict) and isinstance(entry.get("messages"), list)
            for entry in agents.values()):
        return  # the comparison needs every agent's message list
    assert _lint_each(copy.deepcopy(doc), profile, whole=True) == _lint_each(
        copy.deepcopy(doc), profile, whole=False)


@FUZZ
@given(st.data(), PROFILES, st.sampled_from([None, 1, 2, 4]))
def test_reserialising_changes_no_finding(data: st.DataObject, profile: Profile,
                                          indent: int | None) -> None:
    doc, raw, jsonl = mutated_input(data)
    if jsonl:
        return
    options = LintOptions(profile=profile)
    before = lint_bytes(raw, "r.json", options)
    again = reordered(doc, random.Random(data.draw(st.integers(0, 2**32))))
    raw_again = json.dumps(again, ensure_ascii=data.draw(st.booleans()), indent=indent).encode()
    assert key(lint_bytes(raw_again, "r.json", options)) == key(before)
    # JSON inside strings (tool arguments, results) written anew: positions inside those
    # strings move, but the same findings stay on the same values
    inner = respelt_inner_json(doc, random.Random(data.draw(st.integers(0, 2**32))))
    after = lint_bytes(json.dumps(inner, ensure_ascii=False).encode(), "r.json", options)
    assert on_values(after) == on_values(before)


@FUZZ
@given(st.data(), PROFILES)
def test_a_byte_order_mark_changes_no_finding(data: st.DataObject, profile: Profile) -> None:
    _doc, raw, jsonl = mutated_input(data)
    agent = data.draw(st.sampled_from([None, *NAMES[:4]]))  # None: inferred
    options = LintOptions(profile=profile, agent=agent)
    suffix = ".jsonl" if jsonl else ".json"
    with tempfile.TemporaryDirectory() as folder:
        reports = []
        for name, content in (("plain", raw), ("bom", b"\xef\xbb\xbf" + raw)):
            path = os.path.join(folder, name + suffix)
            Path(path).write_bytes(content)
            reports.append(lint_file(path, options))
        with_file_lines(reports)  # reads the files again
    plain, bom = reports
    assert key(bom) == key(plain)
    assert [f.file_column for f in bom.findings] == [f.file_column for f in plain.findings]


def test_the_seed_is_clean() -> None:
    assert lint_bytes(_seed_bundle(), "seed.json").findings == []
