"""The stops of profile astrion as a harness sees them: which sub-agents a Team Leader's
``stop_sub_agent`` calls paused, and how often (TW-PROF-025, TW-PROF-035).

A stop ends the target's turn without results for the tool calls it left open, so the check
that every tool call gets one result (TW-CERT-008) excuses one such place in a sub-agent's
conversation for each stop that named it and did not fail."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable
from typing import Any

from teamwire.envelope.names import astrion_lookup


def stops_by_agent(leader_messages: Iterable[Any], names: Iterable[str]) -> Counter[str]:
    """Sub-agent display name → how many ``stop_sub_agent`` calls of the Team Leader named
    it and succeeded; ``names`` are the sub-agents of the run."""
    subs = list(names)
    messages = [m for m in leader_messages if isinstance(m, dict)]
    succeeded = {m.get("tool_call_id") for m in messages
                 if m.get("role") == "tool" and _success(m.get("content"))}
    counted: Counter[str] = Counter()
    for message in messages:
        if message.get("role") != "assistant":
            continue
        for tool_call in message.get("tool_calls") or []:
            function = tool_call.get("function") if isinstance(tool_call, dict) else None
            if not isinstance(function, dict) or function.get("name") != "stop_sub_agent" \
                    or tool_call.get("id") not in succeeded:
                continue
            target = _target(function.get("arguments"), subs)
            if target is not None:
                counted[target] += 1
    return counted


def _success(content: Any) -> bool:
    try:
        value = json.loads(content) if isinstance(content, str) else None
    except ValueError:
        return False
    return isinstance(value, dict) and value.get("success") is True


def _target(arguments: Any, subs: list[str]) -> str | None:
    """The sub-agent a stop names: by ``display_name`` as TW-PROF-026 resolves it (exactly,
    else the first in other letter case), or by ``agent_id`` when one sub-agent alone has
    that instance number (the number its display name ends with)."""
    try:
        value = json.loads(arguments) if isinstance(arguments, str) else arguments
    except ValueError:
        return None
    if not isinstance(value, dict):
        return None
    name = value.get("display_name")
    if isinstance(name, str):
        return astrion_lookup(name, subs)
    number = value.get("agent_id")
    if type(number) is int:
        found = [s for s in subs if s.endswith(f"_{number}")]
        return found[0] if len(found) == 1 else None
    return None
