"""The throwaway prototype linter the throughput target was set by, rebuilt from its
description, as a second baseline for ``bench_lint.py``.

It does only what that description lists: an orjson decode, one anchored regular expression
per envelope, argument validators built once and reused (jsonschema, as measured there),
and per-conversation id and tool-call bookkeeping. It reports nothing and checks nothing
across conversations; it exists to be timed on the same corpus as the real linter.
"""

from __future__ import annotations

import re
from typing import Any

import orjson
from jsonschema import Draft202012Validator

from teamwire.envelope import Profile
from teamwire.validator.tooling import tool_catalog

_ENVELOPE = re.compile(
    r"来自 ([^\n]+?)(?: 向 [^\n]+?)? 的([^\n]+)\nid: ([^\n]+)\n\n<\1>\n<([A-Za-z]+)((?: [a-z_]+=\"["
    r"^\"\n]*\")*)>\n(.*)\n</\4>\n</\1>", re.DOTALL).fullmatch


def validators() -> dict[str, Draft202012Validator]:
    """One jsonschema validator per protocol tool, built once."""
    catalog = tool_catalog(Profile.STRICT)
    found: dict[str, Draft202012Validator] = {}
    for name in catalog.protocol:
        validator = catalog.validator(name)
        if validator is not None:
            found[name] = validator
    return found


def prototype_lint(data: bytes, tools: dict[str, Draft202012Validator]) -> int:
    """Decode one bundle and walk it as the prototype did; returns the problems counted."""
    bundle = orjson.loads(data)
    problems = 0
    for entry in bundle["agents"].values():
        ids: set[str] = set()
        pending: dict[str, str] = {}
        for message in entry["messages"]:
            role = message.get("role")
            content = message.get("content")
            if role == "user":
                if type(content) is str and content.startswith("来自 "):
                    match = _ENVELOPE(content)
                    if match is None or match[3] in ids:
                        problems += 1
                    else:
                        ids.add(match[3])
            elif role == "assistant":
                for call in message.get("tool_calls") or ():
                    function = call["function"]
                    name = function["name"]
                    pending[call["id"]] = name
                    validator = tools.get(name)
                    if validator is not None:
                        arguments: Any = orjson.loads(function["arguments"] or "{}")
                        if not validator.is_valid(arguments):
                            problems += 1
            elif role == "tool" and pending.pop(message.get("tool_call_id"), None) is None:
                problems += 1
        problems += len(pending)
    return problems
