"""The session bundle and the event log, as a session writes them."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from teamwire.envelope import parse_display_name
from teamwire.router.records import AgentRecord
from teamwire.spec_version import SPEC_VERSION


def session_bundle(records: Iterable[AgentRecord], conversations: Mapping[str, list[Any]],
                   session_id: str | None) -> dict[str, Any]:
    """The session bundle: every agent's conversation in chat-completions form."""
    agents: dict[str, Any] = {}
    for record in records:
        entry: dict[str, Any] = {"role_id": record.role_id}
        parsed = parse_display_name(record.name)
        if parsed.agent_id is not None:
            entry["agent_id"] = parsed.agent_id
        entry["messages"] = conversations.get(record.name, [])
        agents[record.name] = entry
    bundle: dict[str, Any] = {"teamwire": SPEC_VERSION}
    if session_id is not None:
        bundle["session"] = session_id
    bundle["agents"] = agents
    return bundle


def write_session(directory: str | Path, bundle: dict[str, Any],
                  events: Iterable[dict[str, Any]]) -> tuple[Path, Path]:
    """Write ``bundle.json`` and ``events.jsonl`` into ``directory``; return their paths."""
    target = Path(directory)
    target.mkdir(parents=True, exist_ok=True)
    bundle_path = target / "bundle.json"
    bundle_path.write_text(json.dumps(bundle, ensure_ascii=False, indent=2) + "\n",
                           encoding="utf-8")
    events_path = target / "events.jsonl"
    events_path.write_text("".join(json.dumps(e, ensure_ascii=False) + "\n" for e in events),
                           encoding="utf-8")
    return bundle_path, events_path
