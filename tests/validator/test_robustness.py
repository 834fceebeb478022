"""Bad input never produces a traceback, and gets exactly the findings the specification gives it:
arbitrary JSON and bytes, conversations and bundles with parts that are no messages, through
the API and the CLI.

The oracles, from the specification and the transcript formats it defines:

- a transcript is a session bundle (a JSON object with 'teamwire' and 'agents') or one
  conversation (a JSON array, or JSON Lines, of chat-completions messages); any other JSON
  document is TW003, and input that is not UTF-8 is TW002 and not JSON TW001 (RFC 8259; an
  implementation may refuse numbers beyond a double and unpaired surrogate escapes, RFC 8259
  sections 9 and 8.2, and the linter does);
- an element of a conversation that is no chat message (not an object, no role of system, user,
  assistant and tool, content that is not a string, an assistant message with neither content
  nor tool calls, tool_calls that are not an array, a tool message without tool_call_id) is
  TW004 where it stands, and content that is an array of parts TW005; the messages around it
  are judged as without it;
- a conversation whose owner nothing tells is TW009 (an empty one has nothing to check);
- a bundle's version must be 1.x (TW006, spec/schemas/common.schema.json#/$defs/version); its
  entries are objects (TW003) whose messages are arrays (TW003), named by valid display names
  (TW112, TW602 for unsafe characters: TW-NAME-002, TW-NAME-004 to TW-NAME-006, TW-NAME-012),
  with a role id and an agent_id that fit the name (TW007, TW-NAME-008, TW-NAME-013).
"""

from __future__ import annotations

import json
import math
import re
from collections import Counter
from typing import Any

from click.testing import CliRunner
from conformance.sources.transcripts.spec_session import TL, SpecSession
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from teamwire.cli import main
from teamwire.envelope import Profile
from teamwire.validator import REGISTRY, FileReport, LintOptions, Severity, lint_bytes, lint_value
from tests.validator import strategies

POINTER = re.compile(r"(?:/(?:[^~/]|~[01])*)*")
PROFILES = st.sampled_from([Profile.STRICT, Profile.ASTRION])
VERSION = re.compile(r"1\.(?:0|[1-9][0-9]*)")
BOM = b"\xef\xbb\xbf"
Key = tuple[str, str | None, int | None]


def well_formed(report: FileReport) -> None:
    for finding in report.findings:
        assert finding.rule in REGISTRY
        assert finding.message
        assert finding.pointer is None or POINTER.fullmatch(finding.pointer)
        assert finding.line is None or finding.line >= 1
        assert finding.column is None or finding.column >= 1
        assert finding.index is None or finding.index >= 0


def found(report: FileReport) -> Counter[Key]:
    well_formed(report)
    return Counter((f.rule, f.agent, f.index) for f in report.findings)


# -- oracles ----------------------------------------------------------------------------------


def not_a_message(value: Any) -> bool:
    """Whether an element of a conversation is no chat message for want of an object with a
    role (the elements this oracle judges; others it leaves to assume())."""
    return type(value) is not dict or value.get("role") not in strategies.CHAT_ROLES


def expected_for_value(value: Any) -> Counter[Key]:
    """The findings of a decoded document made of arbitrary JSON."""
    if type(value) is list:
        assume(all(not_a_message(v) for v in value))
        out: Counter[Key] = Counter(("TW004", None, i) for i in range(len(value)))
        if value:  # no message tells whose conversation it is
            out[("TW009", None, None)] += 1
        return out
    if type(value) is dict:
        assume("agents" not in value and "teamwire" not in value)  # a bundle: see below
    return Counter({("TW003", None, None): 1})


class NotJson(Exception):
    pass


def _no_constant(name: str) -> Any:
    raise NotJson(name)


def _finite(text: str) -> float:
    number = float(text)
    if math.isinf(number):
        raise NotJson(text)
    return number


def _no_lone_surrogates(value: Any) -> None:
    if type(value) is str and any("\ud800" <= ch <= "\udfff" for ch in value):
        raise NotJson("unpaired surrogate")
    for item in value.items() if type(value) is dict else value if type(value) is list else ():
        for part in item if type(item) is tuple else (item,):
            _no_lone_surrogates(part)


def decode(text: str) -> Any:
    """RFC 8259 JSON, as the linter reads it; raises NotJson."""
    try:
        value = json.loads(text, parse_constant=_no_constant, parse_float=_finite)
    except (ValueError, RecursionError) as exc:
        raise NotJson(str(exc)) from exc
    _no_lone_surrogates(value)
    return value


def _json_lines_first(text: str) -> bool:
    """Whether ``text`` is one JSON object followed by more text: read as JSON Lines."""
    start = len(text) - len(text.lstrip(" \t\n\r"))
    if text[start:start + 1] != "{":
        return False
    decoder = json.JSONDecoder(parse_constant=_no_constant, parse_float=_finite)
    try:
        value, end = decoder.raw_decode(text, start)
        _no_lone_surrogates(value)
    except (ValueError, RecursionError, NotJson):
        return False
    return bool(text[end:].strip(" \t\n\r"))


def expected_for_lines(data: bytes) -> Counter[Key]:
    """The findings of JSON Lines made of arbitrary bytes: each line that is not white space
    only is one record, judged alone."""
    out: Counter[Key] = Counter()
    index = 0
    records: list[Any] = []
    for line in data.split(b"\n"):
        if not line.strip():
            continue
        try:
            text = line.decode("utf-8")
        except UnicodeDecodeError:
            out[("TW002", None, index)] += 1
        else:
            try:
                records.append(decode(text))
            except NotJson:
                out[("TW001", None, index)] += 1
            else:
                if not records[1:] and index == 0 and type(records[0]) is dict \
                        and {"seq", "event"} <= records[0].keys() and "role" not in records[0]:
                    return Counter({("TW003", None, None): 1})  # an event log, not a transcript
                assume(not_a_message(records[-1]))
                out[("TW004", None, index)] += 1
        index += 1
    if index:
        out[("TW009", None, None)] += 1
    return out


def expected_for_bytes(data: bytes, jsonl: bool | None) -> Counter[Key]:
    data = data.removeprefix(BOM)
    if jsonl:
        return expected_for_lines(data)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return Counter({("TW002", None, None): 1})
    try:
        value = decode(text)
    except NotJson:
        if jsonl is None and _json_lines_first(text):
            return expected_for_lines(data)
        return Counter({("TW001", None, None): 1})
    return expected_for_value(value)


# -- inputs with a known verdict ----------------------------------------------------------------


@st.composite
def garbled(draw: st.DrawFn, messages: list[Any], agent: str | None) -> tuple[list[Any], Counter[Key]]:
    """``messages`` with elements that are no messages inserted (never between a call and its
    results); returns the new list and the findings of the inserted elements."""
    out = list(messages)
    inserted: list[tuple[int, str]] = []
    for _ in range(draw(st.integers(1, 3))):
        places = [i for i in range(len(out) + 1)
                  if i == len(out) or type(out[i]) is not dict or out[i].get("role") != "tool"]
        at = draw(st.sampled_from(places))
        value, rule = draw(strategies.not_messages())
        out.insert(at, value)
        inserted = [(i + (i >= at), r) for i, r in inserted] + [(at, rule)]
    return out, Counter((rule, agent, i) for i, rule in inserted)


@st.composite
def conversations(draw: st.DrawFn) -> tuple[list[Any], Counter[Key], str | None]:
    """One conversation of a clean session, with elements that are no messages in it; the
    findings it gets; and the --agent to lint it with."""
    s: SpecSession = draw(strategies.spec_sessions())
    owner = draw(st.sampled_from(sorted(s.agents)))
    agent = draw(st.sampled_from([None, owner]))
    # Untold, the leader is known by its tool calls, a sub-agent by its Task, unnamed.
    messages, expected = draw(garbled(s.agents[owner].messages,
                                      agent or (TL if owner == TL else None)))
    return messages, expected, agent


EXTRA_AGENTS: list[tuple[str, Any, list[str]]] = [
    ("Tester_4", {"role_id": "tester", "agent_id": 4, "messages": []}, []),
    ("Tester _5", {"role_id": "tester", "agent_id": 5, "messages": []}, ["TW112"]),
    ("Team Leader_6", {"role_id": "tester", "agent_id": 6, "messages": []}, ["TW112"]),
    ("Data 的 Analyst_7", {"role_id": "analyst", "agent_id": 7, "messages": []}, ["TW112"]),
    ("Co<der>_9", {"role_id": "coder", "agent_id": 9, "messages": []}, ["TW602"]),
    ("Coder\x07_10", {"role_id": "coder", "agent_id": 10, "messages": []}, ["TW602"]),
    ("Tester_11", {"role_id": "Tester", "agent_id": 11, "messages": []}, ["TW007"]),
    ("Tester_12", {"role_id": "team-leader", "agent_id": 12, "messages": []}, ["TW007"]),
    ("Tester_13", {"role_id": "tester", "agent_id": 14, "messages": []}, ["TW007"]),
    ("Tester_15", {"role_id": "tester", "messages": []}, ["TW007"]),
    ("Tester_16", {"agent_id": 16.0, "messages": []}, ["TW007", "TW007"]),
    ("Tester_17", ["role_id", "tester"], ["TW003"]),
    ("Tester_18", {"role_id": "tester", "agent_id": 18, "messages": {}}, ["TW003"]),
    ("Tester_19", {"role_id": "tester", "agent_id": 19}, ["TW003"]),
]
"""Bundle entries of sub-agents no one created (nothing cross-checks them), and what each
gets at the bundle level (index None)."""


@st.composite
def bundles(draw: st.DrawFn) -> tuple[dict[str, Any], Counter[Key]]:
    """A clean session's bundle with a version, extra entries and elements that are no
    messages in its conversations; and the findings it gets."""
    s: SpecSession = draw(strategies.spec_sessions())
    bundle = s.bundle()
    expected: Counter[Key] = Counter()
    if draw(st.booleans()):
        version = draw(st.sampled_from(["1.0", "1.3", "1.10", "2.0", "1", "1.01", "01.0", "1.0\n",
                                        "1.\u00b2", "", " 1.0"])) if draw(st.booleans()) \
            else draw(strategies.json_values)
        bundle["teamwire"] = version
        if type(version) is not str or not VERSION.fullmatch(version):
            expected[("TW006", None, None)] += 1
    for name in draw(st.lists(st.sampled_from(sorted(s.agents)), max_size=3, unique=True)):
        entry = bundle["agents"][name]
        entry["messages"], inserted = draw(garbled(entry["messages"], name))
        expected += inserted
    for name, entry, rules in draw(st.lists(st.sampled_from(EXTRA_AGENTS), max_size=3,
                                            unique_by=lambda e: e[0])):
        bundle["agents"][name] = json.loads(json.dumps(entry))
        expected += Counter((rule, name, None) for rule in rules)
    return bundle, expected


# -- the properties -----------------------------------------------------------------------------


@given(strategies.json_values, PROFILES)
def test_any_json_value(value: object, profile: Profile) -> None:
    want = expected_for_value(value)
    assert found(lint_value(value, options=LintOptions(profile=profile))) == want


@given(conversations(), PROFILES)
def test_conversation_shaped_values(case: tuple[list[Any], Counter[Key], str | None],
                                    profile: Profile) -> None:
    messages, want, agent = case
    assert found(lint_value(messages, options=LintOptions(profile=profile, agent=agent))) == want


@given(bundles(), PROFILES)
def test_bundle_shaped_values(case: tuple[dict[str, Any], Counter[Key]], profile: Profile) -> None:
    bundle, want = case
    assert found(lint_value(bundle, options=LintOptions(profile=profile))) == want


def _json_texts(value: Any) -> bytes:
    return json.dumps(value, ensure_ascii=False).encode()


ANY_BYTES = (st.binary(max_size=300)
             | strategies.json_values.map(_json_texts)
             | st.lists(strategies.json_values.map(_json_texts), min_size=2, max_size=4).map(
                 b"\n".join))
"""Bytes, most of them no JSON; JSON documents; and several JSON documents, one a line."""


@given(ANY_BYTES, st.sampled_from([None, False, True]))
def test_any_bytes(data: bytes, jsonl: bool | None) -> None:
    want = expected_for_bytes(data, jsonl)
    assert found(lint_bytes(data, "x", jsonl=jsonl)) == want


@given(conversations())
def test_conversations_as_json_lines(case: tuple[list[Any], Counter[Key], str | None]) -> None:
    messages, want, agent = case
    data = b"".join(json.dumps(m, ensure_ascii=False).encode() + b"\n" for m in messages)
    report = lint_bytes(data, "x.jsonl", LintOptions(agent=agent), jsonl=True)
    assert found(report) == want
    # One conversation, two formats, the same findings.
    assert found(report) == found(lint_value(messages, options=LintOptions(agent=agent)))


@given(strategies.conversations)
def test_any_conversation_reads_alike_as_json_lines(value: list[object]) -> None:
    # No oracle for arbitrary messages beyond this: the same conversation, the same findings.
    data = b"".join(json.dumps(m, ensure_ascii=False).encode() + b"\n" for m in value)
    assert found(lint_bytes(data, "x.jsonl", jsonl=True)) == found(lint_value(value))


@st.composite
def cli_inputs(draw: st.DrawFn) -> tuple[bytes, Counter[Key] | None]:
    """Bytes (whose findings the test works out) or a bundle's (with its findings)."""
    if draw(st.booleans()):
        return draw(st.binary(max_size=200)), None
    bundle, want = draw(bundles())
    return json.dumps(bundle).encode(), want


@settings(max_examples=40)
@given(cli_inputs(), st.sampled_from(["text", "json", "sarif", "github", "junit"]))
def test_cli_on_any_bytes(case: tuple[bytes, Counter[Key] | None], output_format: str) -> None:
    data, want = case
    if want is None:
        want = expected_for_bytes(data, None)
    result = CliRunner().invoke(main, ["lint", "-f", output_format, "-"], input=data)
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert "Traceback" not in result.output
    errors = any(REGISTRY[rule].severity is Severity.ERROR for rule, _, _ in want)
    assert result.exit_code == (1 if errors else 0), result.output
    if output_format == "json":
        findings = json.loads(result.output)["findings"]
        assert Counter((f["rule"], f["agent"], f["index"]) for f in findings) == want
    else:
        assert all(rule in result.output for rule, _, _ in want)
