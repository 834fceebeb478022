"""The cases of input.json, TW0xx: the input itself (JSON, encoding, shape, version, bundle entries)."""

from __future__ import annotations

import json
from typing import Any

from conformance.sources.transcripts.blocks import TL, UIO, bundle_with, calls, case, result, user
from conformance.sources.transcripts.builders import small_session


def input_cases() -> list[dict[str, Any]]:
    repeated_content = (
        '{"teamwire": "1.0", "agents": {"Team Leader": {"role_id": "team-leader", "messages": [\n'
        ' {"role": "system", "content": "You are the Team Leader."},\n'
        ' {"role": "user", "content": "Build the form.", "content": "Build the table."}]}}}\n')
    conv = [user("hello")]
    return [
        case(
            "TW001 a truncated bundle", None, [("TW001", None, None)], text='{"teamwire": "1.0", "agents": {'
        ),
        case(
            "TW001 near miss: the same text completed",
            None,
            [("TW003", None, None)],
            text='{"teamwire": "1.0", "agents": {}}',
        ),
        case(
            "TW002 a conversation file in Latin-1",
            None,
            [("TW002", None, None)],
            raw='[{"role": "user", "content": "caf\u00e9"}]'.encode("latin-1"),
            agent=UIO,
        ),
        case(
            "TW002 near miss: the same file in UTF-8",
            None,
            [],
            raw='[{"role": "user", "content": "caf\u00e9"}]'.encode(),
            agent=UIO,
        ),
        case(
            "TW003 a single message instead of a conversation",
            user("hello"),
            [("TW003", None, None)],
            agent=UIO,
        ),
        case("TW003 near miss: a conversation of one message", conv, [], agent=UIO),
        case(
            "TW003 a bundle whose agents is an array, not an object",
            {"teamwire": "1.0", "agents": [{"role_id": "team-leader", "messages": []}]},
            [("TW003", None, None)],
        ),
        case(
            "TW003 a router event log given as JSON Lines",
            [{"seq": 1, "time": 0.0, "event": "TurnStarted", "data": {"agent": TL}, "actions": []},
             {"seq": 2, "time": 0.0, "event": "TurnEnded", "data": {"agent": TL}, "actions": []}],
            [("TW003", None, None)],
            jsonl=True,
        ),
        case(
            "TW003 near miss: JSON Lines messages that also carry seq and event fields",
            [dict(user("hello"), seq=1, event="note")],
            [],
            agent=UIO,
            jsonl=True,
        ),
        case(
            "TW004 a message with an unknown role",
            [{"role": "robot", "content": "beep"}],
            [("TW004", UIO, 0)],
            agent=UIO,
        ),
        case(
            "TW004 near miss: an assistant message that only calls tools",
            [calls("read_file", {"path": "a.ts"}), result("x")],
            [],
            agent=UIO,
        ),
        case(
            "TW005 content given as an array of parts",
            [{"role": "user", "content": [{"type": "text", "text": "hello"}]}],
            [("TW005", UIO, 0)],
            agent=UIO,
        ),
        case("TW005 near miss: the same text as a string", conv, [], agent=UIO),
        case(
            "TW006 a bundle of another major version",
            {"teamwire": "2.0", "agents": {TL: {"role_id": "team-leader", "messages": []}}},
            [("TW006", None, None)],
        ),
        case(
            "TW006 a bundle without its teamwire version",
            {"agents": {TL: {"role_id": "team-leader", "messages": []}}},
            [("TW006", None, None)],
        ),
        case(
            "TW006 a bundle whose teamwire version is a number, not a string",
            {"teamwire": 1.0, "agents": {TL: {"role_id": "team-leader", "messages": []}}},
            [("TW006", None, None)],
        ),
        case(
            "TW006 near miss: a later minor version is read",
            {"teamwire": "1.3", "agents": {TL: {"role_id": "team-leader", "messages": []}}},
            [],
        ),
        *(
            case(
                f"TW006 version {version!r} is not major.minor without leading zeros",
                {"teamwire": version, "agents": {TL: {"role_id": "team-leader", "messages": []}}},
                [("TW006", None, None)],
            )
            for version in ("1", "1.", "1.01", "1.2.3", "1.\u00b2")
        ),
        case(
            "TW006 near miss: a two-digit minor version is read",
            {"teamwire": "1.10", "agents": {TL: {"role_id": "team-leader", "messages": []}}},
            [],
        ),
        case(
            "TW007 agent_id differs from the number in the display name",
            bundle_with(lambda b: b["agents"][UIO].update(agent_id=2)),
            [("TW007", UIO, None)],
        ),
        case("TW007 near miss: the clean session", small_session(), []),
        case(
            "TW007 a display name ending in a superscript digit has no agent number",
            bundle_with(lambda b: b["agents"].update(
                {"Coder_\u00b2": {"role_id": "coder", "agent_id": 2, "messages": []}})),
            [("TW112", "Coder_\u00b2", None), ("TW007", "Coder_\u00b2", None)],
        ),
        case(
            "TW007 near miss: the same entry named with an ASCII digit",
            bundle_with(lambda b: b["agents"].update(
                {"Coder_2": {"role_id": "coder", "agent_id": 2, "messages": []}})),
            [],
        ),
        case(
            "TW008 a JSONL line over the configured limit",
            [user("x" * 300)],
            [("TW008", UIO, 0)],
            agent=UIO,
            jsonl=True,
            config={"max-record-bytes": 200},
        ),
        case(
            "TW008 near miss: the same line under a higher limit",
            [user("x" * 300)],
            [],
            agent=UIO,
            jsonl=True,
            config={"max-record-bytes": 1000},
        ),
        case("TW009 a conversation that does not tell whose it is", conv, [("TW009", None, None)]),
        case("TW009 near miss: the agent is named", conv, [], agent=UIO),
        case("TW009 near miss: an empty conversation has nothing to check", [], []),
        case(
            "TW009 near miss: a conversation that calls leader tools is the leader's",
            [calls("list_agents", {}), result({"success": True, "roles": []})],
            [],
        ),
        case(
            "TW011 a message of a bundle names content twice",
            None,
            [("TW011", TL, 1)],
            text=repeated_content,
            config={"extend-select": ["TW011"]},
        ),
        case(
            "TW011 a JSON Lines record names role twice, once escaped",
            None,
            [("TW011", UIO, 1)],
            text='{"role": "system", "content": "You are UI Operator."}\n'
                 '{"role": "user", "\\u0072ole": "user", "content": "Hi"}\n',
            agent=UIO,
            jsonl=True,
            config={"extend-select": ["TW011"]},
        ),
        case(
            "TW011 a JSON Lines record that is an array names content twice: both findings "
            "are the record's, not its first element's",
            None,
            [("TW004", UIO, 1), ("TW011", UIO, 1)],
            text='{"role": "system", "content": "You are UI Operator."}\n'
                 '[{"role": "user", "content": "Hi", "content": "Hello"}]\n',
            agent=UIO,
            jsonl=True,
            config={"extend-select": ["TW011"]},
        ),
        case(
            "TW011 near miss: the rule is off unless selected",
            None,
            [],
            text=repeated_content,
        ),
        case(
            "TW011 near miss: one name in two objects, and a repeat inside a string",
            None,
            [],
            text=json.dumps([{"role": "system", "content": '{"a": 1, "a": 2}'},
                             {"role": "user", "content": "Hi"}]),
            agent=UIO,
            config={"extend-select": ["TW011"]},
        ),
    ]
