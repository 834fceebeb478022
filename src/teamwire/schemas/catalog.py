"""The schema catalog: every ``*.schema.json`` of one directory, cross-referenced offline.

jsonschema and referencing are imported when a validator or the registry is first
needed: reading a schema, or a copy with its references inlined, needs neither, and
importing them would add a large share to the start of every command.
"""

from __future__ import annotations

import copy
import json
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote, urldefrag, urljoin

from teamwire.json_text import unescape_pointer_token
from teamwire.schemas.compiled import Check, compile_check
from teamwire.schemas.errors import (
    SchemaError,
    SchemaLoadError,
    UnknownSchemaError,
    to_schema_errors,
)
from teamwire.schemas.inlining import inline_refs

if TYPE_CHECKING:
    from jsonschema import Draft202012Validator
    from referencing import Registry

SCHEMA_SUFFIX = ".schema.json"
BASE_URI = "https://teamwire.dev/schemas/1.0/"
_MISSING = object()


@dataclass(frozen=True)
class _Entry:
    name: str
    path: Path
    contents: dict[str, Any]


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise SchemaLoadError(f"{path}: {exc}") from exc


def _load_entry(path: Path) -> _Entry:
    name = path.name[: -len(SCHEMA_SUFFIX)]
    contents = _read_json(path)
    if not isinstance(contents, dict):
        raise SchemaLoadError(f"{path}: a schema must be a JSON object")
    expected = BASE_URI + path.name
    if contents.get("$id") != expected:
        raise SchemaLoadError(f"{path}: $id must be {expected!r}, found {contents.get('$id')!r}")
    return _Entry(name, path, contents)


def _refs(node: Any) -> Iterator[str]:
    if isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str):
            yield ref
        for value in node.values():
            yield from _refs(value)
    elif isinstance(node, list):
        for value in node:
            yield from _refs(value)


class SchemaCatalog:
    """All schemas of one directory, with a shared ``$ref`` registry and cached validators.

    Every ``<name>.schema.json`` file in ``directory`` is picked up; its ``$id`` must be
    ``https://teamwire.dev/schemas/1.0/<name>.schema.json``. Files are read once, when the
    catalog is created; :meth:`check` compares them with the 2020-12 metaschema (too slow
    to do on every start). With ``inline=True`` validators are built from copies whose
    ``$ref``\\ s are inlined, which validates about twice as fast with the same outcome.
    """

    def __init__(self, directory: Path, *, inline: bool = True) -> None:
        self.directory = directory
        self.inline = inline
        paths = sorted(directory.glob("*" + SCHEMA_SUFFIX))
        self._entries = {entry.name: entry for entry in map(_load_entry, paths)}
        self._by_uri = {BASE_URI + e.path.name: e for e in self._entries.values()}
        self._validators: dict[str, Draft202012Validator] = {}
        self._inlined: dict[str, Any] = {}
        self._compiled: dict[str, Check | None] = {}
        self._lock = threading.Lock()

    @cached_property
    def registry(self) -> Registry[Any]:
        """The ``referencing`` registry of every schema of the catalog, crawled."""
        from referencing import Registry, Resource
        from referencing.jsonschema import DRAFT202012

        return Registry().with_resources(
            (uri, Resource.from_contents(e.contents, DRAFT202012))
            for uri, e in self._by_uri.items()).crawl()

    def names(self) -> list[str]:
        """Names of all schemas, sorted."""
        return sorted(self._entries)

    def _entry(self, name: str) -> _Entry:
        try:
            return self._entries[name]
        except KeyError:
            raise UnknownSchemaError(name, self.names()) from None

    def uri(self, name: str) -> str:
        """The ``$id`` of a schema."""
        return BASE_URI + self._entry(name).path.name

    def path(self, name: str) -> Path:
        """The file a schema was read from."""
        return self._entry(name).path

    def title(self, name: str) -> str:
        """The schema's ``title`` (empty if it has none)."""
        return str(self._entry(name).contents.get("title", ""))

    def json_lines(self, name: str) -> bool:
        """Whether the schema describes one record of a JSON Lines file (its root says
        ``"x-json-lines": true``), not a whole document."""
        return self._entry(name).contents.get("x-json-lines") is True

    def schema(self, ref: str) -> dict[str, Any]:
        """A copy of a schema, or of the subschema ``ref`` names as ``name#/json/pointer``."""
        name, _, pointer = ref.partition("#")
        entry = self._entry(name)
        if not pointer:
            return copy.deepcopy(entry.contents)
        found = self._resolve(ref)
        if not isinstance(found, dict):
            raise UnknownSchemaError(ref, self.names())
        return copy.deepcopy(found)

    def _lookup(self, uri: str) -> Any:
        found = self._local(uri)
        if found is not _MISSING:
            return found
        from referencing.exceptions import Unresolvable

        try:
            return self.registry.resolver().lookup(uri).contents
        except Unresolvable as exc:
            raise SchemaLoadError(f"a $ref does not resolve: {exc}") from exc

    def _local(self, uri: str) -> Any:
        """What ``uri`` names when it is one of the catalog's documents with a JSON pointer
        fragment (all the shipped schemas use); ``_MISSING`` for anything the registry
        must resolve."""
        document, fragment = urldefrag(uri)
        entry = self._by_uri.get(document)
        if entry is None or (fragment and not fragment.startswith("/")):
            return _MISSING
        node: Any = entry.contents
        for token in fragment.split("/")[1:]:
            token = unescape_pointer_token(unquote(token))
            if isinstance(node, dict) and token in node:
                node = node[token]
            elif isinstance(node, list) and token.isdigit() and int(token) < len(node):
                node = node[int(token)]
            else:
                return _MISSING
        return node

    def _resolve(self, ref: str) -> Any:
        name, _, pointer = ref.partition("#")
        uri = self.uri(name)
        found = self._local(f"{uri}#{pointer}")
        if found is not _MISSING:
            return found
        from referencing.exceptions import Unresolvable

        try:
            return self.registry.resolver().lookup(f"{uri}#{pointer}").contents
        except Unresolvable:
            raise UnknownSchemaError(ref, self.names()) from None

    def _root(self, ref: str) -> dict[str, Any]:
        name, _, pointer = ref.partition("#")
        if pointer:
            contents = self._resolve(ref)
            if not isinstance(contents, (dict, bool)):
                raise UnknownSchemaError(ref, self.names())
            return {"$ref": f"{self.uri(name)}#{pointer}"}
        return {"$ref": self.uri(name)}

    def validator(self, ref: str) -> Draft202012Validator:
        """The validator of a schema ``name`` or subschema ``name#/json/pointer``, built once."""
        cached = self._validators.get(ref)
        if cached is not None:
            return cached
        return self.composed(ref, self._root(ref))

    def inlined(self, ref: str) -> Any:
        """The schema a validator of ``ref`` checks against: with ``inline=True``, a copy whose
        ``$ref``\\ s are replaced by their targets (without importing jsonschema)."""
        return self._inlined_root(ref, self._root(ref))

    def compiled(self, ref: str) -> Check | None:
        """The schema of ``ref``, inlined, compiled to a predicate
        (``schemas.compiled.compile_check``) once: None when it uses keywords the compiler
        does not take. Like the validators, it depends on the shipped schema alone, so every
        checker of arguments may share it; there is one per schema reference."""
        if ref in self._compiled:
            return self._compiled[ref]
        built = compile_check(self.inlined(ref))
        with self._lock:
            return self._compiled.setdefault(ref, built)

    def _inlined_root(self, key: str, root: dict[str, Any]) -> Any:
        cached = self._inlined.get(key)
        if cached is None:
            try:
                cached = inline_refs(root, self._lookup) if self.inline else root
            except SchemaLoadError as exc:
                raise SchemaLoadError(f"{key}: {exc}") from exc
            with self._lock:
                cached = self._inlined.setdefault(key, cached)
        return cached

    def composed(self, key: str, root: dict[str, Any]) -> Draft202012Validator:
        """A validator for an ad hoc schema that may ``$ref`` the catalog, cached under ``key``."""
        cached = self._validators.get(key)
        if cached is not None:
            return cached
        from jsonschema import Draft202012Validator
        from referencing.exceptions import Unresolvable

        try:
            built = Draft202012Validator(self._inlined_root(key, root), registry=self.registry)
        except Unresolvable as exc:
            raise SchemaLoadError(f"{key}: a $ref does not resolve: {exc}") from exc
        with self._lock:
            return self._validators.setdefault(key, built)

    def check(self) -> list[str]:
        """Problems in the schema files: metaschema violations, ``$ref``\\ s that do not resolve."""
        from jsonschema import Draft202012Validator
        from referencing.exceptions import Unresolvable

        problems = []
        for entry in self._entries.values():
            for error in Draft202012Validator(Draft202012Validator.META_SCHEMA).iter_errors(entry.contents):
                problems.append(f"{entry.path.name}: {error.json_path}: {error.message}")
            for ref in _refs(entry.contents):
                target = urljoin(self.uri(entry.name), ref)
                try:
                    self.registry.resolver().lookup(target)
                except Unresolvable:
                    problems.append(f"{entry.path.name}: $ref {ref!r} does not resolve")
        return problems

    def validate(self, ref: str, instance: Any) -> list[SchemaError]:
        """Every reason ``instance`` does not match the schema, sorted by instance path."""
        return to_schema_errors(self.validator(ref).iter_errors(instance))

    def is_valid(self, ref: str, instance: Any) -> bool:
        """Whether ``instance`` matches the schema."""
        return bool(self.validator(ref).is_valid(instance))
