"""The schema catalog: every ``*.schema.json`` of one directory, cross-referenced offline."""

from __future__ import annotations

import copy
import json
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError as MetaschemaError
from referencing import Registry, Resource
from referencing.exceptions import Unresolvable
from referencing.jsonschema import DRAFT202012

from teamwire.schemas.errors import (
    SchemaError,
    SchemaLoadError,
    UnknownSchemaError,
    to_schema_errors,
)

SCHEMA_SUFFIX = ".schema.json"
BASE_URI = "https://teamwire.dev/schemas/1.0/"


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
    try:
        Draft202012Validator.check_schema(contents)
    except MetaschemaError as exc:
        raise SchemaLoadError(f"{path}: not a valid 2020-12 schema: {exc.message}") from exc
    return _Entry(name, path, contents)


class SchemaCatalog:
    """All schemas of one directory, with a shared ``$ref`` registry and cached validators.

    Every ``<name>.schema.json`` file in ``directory`` is picked up; its ``$id`` must be
    ``https://teamwire.dev/schemas/1.0/<name>.schema.json``. Files are read and checked
    against the 2020-12 metaschema once, when the catalog is created.
    """

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        paths = sorted(directory.glob("*" + SCHEMA_SUFFIX))
        self._entries = {entry.name: entry for entry in map(_load_entry, paths)}
        self.registry: Registry[Any] = (
            Registry()
            .with_resources(
                (BASE_URI + e.path.name, Resource.from_contents(e.contents, DRAFT202012))
                for e in self._entries.values()
            )
            .crawl()
        )
        self._validators: dict[str, Draft202012Validator] = {}
        self._lock = threading.Lock()

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

    def _resolve(self, ref: str) -> Any:
        name, _, pointer = ref.partition("#")
        uri = self.uri(name)
        try:
            return self.registry.resolver().lookup(f"{uri}#{pointer}").contents
        except Unresolvable:
            raise UnknownSchemaError(ref, self.names()) from None

    def validator(self, ref: str) -> Draft202012Validator:
        """The validator of a schema ``name`` or subschema ``name#/json/pointer``, built once."""
        cached = self._validators.get(ref)
        if cached is not None:
            return cached
        name, _, pointer = ref.partition("#")
        if pointer:
            contents = self._resolve(ref)
            if not isinstance(contents, (dict, bool)):
                raise UnknownSchemaError(ref, self.names())
            root: dict[str, Any] = {"$ref": f"{self.uri(name)}#{pointer}"}
        else:
            root = self._entry(name).contents
        return self.composed(ref, root)

    def composed(self, key: str, root: dict[str, Any]) -> Draft202012Validator:
        """A validator for an ad hoc schema that may ``$ref`` the catalog, cached under ``key``."""
        cached = self._validators.get(key)
        if cached is not None:
            return cached
        built = Draft202012Validator(root, registry=self.registry)
        with self._lock:
            return self._validators.setdefault(key, built)

    def validate(self, ref: str, instance: Any) -> list[SchemaError]:
        """Every reason ``instance`` does not match the schema, sorted by instance path."""
        return to_schema_errors(self.validator(ref).iter_errors(instance))

    def is_valid(self, ref: str, instance: Any) -> bool:
        """Whether ``instance`` matches the schema."""
        return bool(self.validator(ref).is_valid(instance))
