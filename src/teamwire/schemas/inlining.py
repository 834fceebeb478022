"""Copy a schema with its ``$ref``\\ s replaced by what they point to.

Resolving a ``$ref`` through a ``referencing`` registry costs tens of microseconds on
every validation; the protocol's schemas are small and not recursive, so inlining them
once makes validation about twice as fast with the same outcome. References that would
recurse, or whose target uses dynamic scoping, are kept as absolute URIs and resolved
through the registry as usual.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any
from urllib.parse import urldefrag, urljoin

# A ``$ref`` whose siblings are only these annotations can be replaced by its target.
_ANNOTATIONS = frozenset({"title", "description", "examples", "default", "$comment", "deprecated"})
# Keywords whose meaning depends on where the schema sits; such targets are not copied.
_SCOPED = frozenset({"$id", "$anchor", "$dynamicRef", "$dynamicAnchor", "$recursiveRef"})

Lookup = Callable[[str], Any]


def _uses_scoping(node: Any) -> bool:
    if isinstance(node, dict):
        return bool(set(node) & _SCOPED) or any(_uses_scoping(v) for v in node.values())
    if isinstance(node, list):
        return any(_uses_scoping(v) for v in node)
    return False


def _absolute(base: str, ref: str) -> str:
    uri = urljoin(base, ref)
    return uri[:-1] if uri.endswith("#") else uri


def inline_refs(root: Any, lookup: Lookup, base_uri: str = "") -> Any:
    """Return a copy of ``root`` with every non-recursive ``$ref`` replaced by its target.

    ``lookup`` maps an absolute URI (fragment included) to the schema it names;
    ``base_uri`` resolves relative references of ``root``. A copied document loses its
    ``$id``, ``$schema`` and ``$defs``: every reference into it has been resolved already.
    """

    def copy_target(uri: str, active: frozenset[str]) -> Any:
        target = lookup(uri)
        if isinstance(target, bool):
            return target
        document, fragment = urldefrag(uri)
        body = dict(target)
        if not fragment:
            body.pop("$id", None)  # the document's own id; its base is passed down instead
        if not isinstance(target, dict) or _uses_scoping(body):
            return None
        copied = walk(body, document, active | {uri})
        for key in ("$schema", "$defs"):
            copied.pop(key, None)
        return copied

    def walk(node: Any, base: str, active: frozenset[str]) -> Any:
        if isinstance(node, list):
            return [walk(v, base, active) for v in node]
        if not isinstance(node, dict):
            return node
        out = {k: walk(v, base, active) for k, v in node.items() if k != "$ref"}
        ref = node.get("$ref")
        if not isinstance(ref, str):
            return out
        uri = _absolute(base, ref)
        target = None if uri in active else copy_target(uri, active)
        if target is None:
            out["$ref"] = uri
            return out
        return _merge(out, target)

    return walk(root, base_uri, frozenset({base_uri}) if base_uri else frozenset())


def _merge(siblings: dict[str, Any], target: Any) -> Any:
    if not siblings:
        return target
    if isinstance(target, dict) and set(siblings) <= _ANNOTATIONS:
        # Only annotations beside the $ref: fold them in. The target's win, as they do
        # when the reference is resolved (error messages name the definition).
        return {**siblings, **target}
    combined = dict(siblings)
    combined["allOf"] = [*combined.get("allOf", []), target]
    return combined
