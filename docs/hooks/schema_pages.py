"""mkdocs hook: a reference page for every JSON Schema, and the schema served at its ``$id``.

Each ``spec/schemas/NAME.schema.json`` gets ``schemas/NAME.md``: its description, a property
table for the root object and for every object nested in it or kept in ``$defs`` (name, type,
required, description, constraints), its conditional rules in words, its shipped examples
(valid and invalid) and its source. The file itself is copied to the path its ``$id`` names
under the site's ``site_url``, so a validator that fetches ``$id`` finds it there.

A keyword the table writer does not know stops the build: a table that silently left a
constraint out would read as the whole truth.
"""

from __future__ import annotations

import html
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File, Files

from teamwire.site import SITE_URL

ROOT = Path(__file__).resolve().parents[2]
SCHEMAS = ROOT / "spec" / "schemas"
EXAMPLES = SCHEMAS / "examples"
# SITE_URL is the address mkdocs.yml publishes the site at; on_files checks the two agree.

# Keywords that annotate or structure a schema; each is either drawn as a column of its own
# (type, description, properties ...) or is not a constraint on the instance at all.
_STRUCTURE = {"$schema", "$id", "$defs", "title", "description", "type", "properties",
              "required", "items", "$ref", "$comment", "examples", "default", "allOf",
              "if", "then", "else", "anyOf", "oneOf", "deprecated", "readOnly", "writeOnly",
              "x-json-lines"}


def _code(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    # A backtick inside would end a single-backtick span. Pipes need no escape: the tables
    # extension does not split a row inside a code span.
    return "`` " + text + " ``" if "`" in text else "`" + text + "`"


def _flat(markdown: str) -> str:
    """Markdown written by this module, on one line for a table cell."""
    return " ".join(markdown.split())


def _cell(text: str) -> str:
    """Prose from a schema as Markdown: one line, its own characters only (a ``<Output>``
    tag or ``{Role Name}_{n}`` is text, not markup)."""
    text = html.escape(" ".join(text.split()), quote=False)
    return re.sub(r"([\\`*_\[\]|])", r"\\\1", text)


def _anchor(path: str) -> str:
    """The anchor of the table of the object at ``path`` (``acceptance``, ``checks[]``,
    ``$defs/tool-call.function``)."""
    prefix, path = ("def-", path.removeprefix("$defs/")) if path.startswith("$defs/") else \
        ("prop-", path)
    return prefix + path.replace("[]", "-items").replace(".", "-")


def _sentence(phrase: str) -> str:
    """A phrase about what a schema accepts, as a sentence."""
    article = "An" if phrase[:1] in "aeiou" else "A"
    return f"{article} {phrase}." if phrase[:1].islower() else f"{phrase}."


def _plural(count: int, word: str) -> str:
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


def _constraint(keyword: str, value: Any, where: str, describe: Any) -> str:
    """One constraint keyword in words; an unknown keyword stops the build."""
    simple = {
        "minLength": lambda v: f"at least {_plural(v, 'character')}",
        "maxLength": lambda v: f"at most {_plural(v, 'character')}",
        "minimum": lambda v: f"≥ {v}",
        "maximum": lambda v: f"≤ {v}",
        "exclusiveMinimum": lambda v: f"> {v}",
        "exclusiveMaximum": lambda v: f"< {v}",
        "minItems": lambda v: f"at least {_plural(v, 'item')}",
        "maxItems": lambda v: f"at most {_plural(v, 'item')}",
        "minProperties": lambda v: f"at least {_plural(v, 'member')}",
        "maxProperties": lambda v: f"at most {_plural(v, 'member')}",
        "uniqueItems": lambda v: "items unique" if v else "",
        "pattern": lambda v: f"matches {_code(v)}",
        "format": lambda v: f"format {_code(v)}",
        "const": lambda v: f"exactly {_code(v)}",
        "enum": lambda v: "one of " + ", ".join(_code(item) for item in v),
        "additionalProperties": lambda v: ("no other members" if v is False else
                                           "other members allowed" if v is True else
                                           f"other members: {describe(v)}"),
        "propertyNames": lambda v: f"member names: {describe(v)}",
        "patternProperties": lambda v: "; ".join(f"members named {_code(k)}: {describe(s)}"
                                                 for k, s in v.items()),
        "not": lambda v: f"not {describe(v)}",
        "contains": lambda v: f"some item is {describe(v)}",
        "prefixItems": lambda v: "first items: " + ", ".join(describe(s) for s in v),
        "dependentRequired": lambda v: "; ".join(
            f"with {_code(k)} also " + ", ".join(_code(n) for n in names)
            for k, names in v.items()),
    }
    if keyword not in simple:
        raise PluginError(f"{where}: the schema page writer does not know the keyword "
                          f"{keyword!r}; teach docs/hooks/schema_pages.py to show it")
    return str(simple[keyword](value))


@dataclass
class SchemaPage:
    """The reference page of one schema file, written as it is read."""

    name: str
    data: dict[str, Any]
    anchors: dict[str, str] = field(default_factory=dict)

    # -------------------------------------------------------------- naming of places

    def ref_link(self, ref: str) -> str:
        """A link to the place a ``$ref`` names: a section of this page or of another one."""
        target, _, pointer = ref.partition("#")
        page = "" if not target else target.removesuffix(".schema.json") + ".md"
        if target and not (SCHEMAS / target).is_file():
            raise PluginError(f"{self.name}: $ref {ref!r} names {target}, which spec/schemas "
                              "lacks")
        if pointer.startswith("/$defs/"):
            definition = pointer.removeprefix("/$defs/")
            return f"[{definition}]({page}#def-{definition})"
        if not pointer:
            return f"[{target.removesuffix('.schema.json')}]({page})"
        raise PluginError(f"{self.name}: $ref {ref!r} points inside a schema somewhere other "
                          "than $defs; the page writer cannot link it")

    # -------------------------------------------------------------- one subschema in words

    def type_of(self, schema: Any, path: str) -> str:
        """What a subschema accepts, in a few words (the table's type column)."""
        if schema is True:
            return "anything"
        if schema is False:
            return "nothing (must be absent)"
        if not isinstance(schema, dict):
            raise PluginError(f"{self.name}: {path} is not a schema")
        if "$ref" in schema:
            return self.ref_link(schema["$ref"])
        for keyword, joiner in (("anyOf", " or "), ("oneOf", " or exactly one of ")):
            if keyword in schema and "type" not in schema:
                return joiner.join(self.describe(s, f"{path}/{keyword}/{i}")
                                   for i, s in enumerate(schema[keyword])).removeprefix(
                                       " or exactly one of ")
        types = schema.get("type")
        names = types if isinstance(types, list) else [types] if types else []
        words = []
        for name in names:
            if name == "array" and "items" in schema:
                words.append(f"array of {self.type_of(schema['items'], path + '[]')}")
            elif name == "object" and "properties" in schema and path in self.anchors:
                words.append(f"[object](#{self.anchors[path]})")
            else:
                words.append(str(name))
        if not words:
            if "const" in schema:
                return type(schema["const"]).__name__.replace("str", "string").replace(
                    "NoneType", "null").replace("bool", "boolean").replace("int", "integer")
            if "enum" in schema:
                return "enum"
            return "any"
        return " or ".join(words)

    def constraints_of(self, schema: Any, path: str) -> str:
        """Every constraint of a subschema in words (the table's constraints column)."""
        if not isinstance(schema, dict):
            return ""
        parts = []
        for keyword, value in schema.items():
            if keyword in _STRUCTURE:
                continue
            text = _constraint(keyword, value, f"{self.name}: {path}",
                               lambda s: self.describe(s, path))
            if text:
                parts.append(text)
        for keyword in ("anyOf", "oneOf", "allOf"):
            # Branches with an ``if`` are the conditional rules, written below the table.
            branches = [(i, s) for i, s in enumerate(schema.get(keyword, []))
                        if not (isinstance(s, dict) and "if" in s)]
            if branches and ("type" in schema or keyword == "allOf"):
                joiner = "; " if keyword == "allOf" else " or "
                parts.append(("all of: " if keyword == "allOf" else f"{keyword}: ") + joiner.join(
                    self.describe(s, f"{path}/{keyword}/{i}") for i, s in branches))
        if isinstance(schema.get("items"), dict) and "properties" not in schema["items"]:
            inner = self.constraints_of(schema["items"], path + "[]")
            if inner:
                parts.append(f"each item {inner}")
        return "; ".join(parts)

    def describe(self, schema: Any, path: str) -> str:
        """A subschema in one phrase: its type and its constraints."""
        if isinstance(schema, dict) and set(schema) <= {"const"}:
            return _code(schema["const"]) if schema else "anything"
        if isinstance(schema, dict) and set(schema) <= {"enum"} and schema:
            return "one of " + ", ".join(_code(v) for v in schema["enum"])
        constraints = self.constraints_of(schema, path)
        kind = self.type_of(schema, path)
        if isinstance(schema, dict) and "properties" in schema and "type" not in schema:
            members = ", ".join(
                f"{_code(k)} {self.describe(v, f'{path}.{k}')}"
                for k, v in schema["properties"].items())
            kind = f"members {members}" if members else "an object"
            if schema.get("required"):
                kind += " (" + ", ".join(_code(r) for r in schema["required"]) + " present)"
        elif isinstance(schema, dict) and "required" in schema and "properties" not in schema:
            kind = "with " + ", ".join(_code(r) for r in schema["required"]) + " present"
        return f"{kind} ({constraints})" if constraints and kind != "any" else \
            constraints or kind

    # -------------------------------------------------------------- tables and rules

    def collect(self, schema: dict[str, Any], path: str, anchor: str, heading: str) -> None:
        """Give every object with properties under ``schema`` a section (anchors first, so
        that a type column can link to a section that comes later)."""
        self.anchors[path] = anchor
        for key, sub in schema.get("properties", {}).items():
            self._collect_nested(sub, f"{path}.{key}" if path else key)

    def _collect_nested(self, sub: Any, path: str) -> None:
        if not isinstance(sub, dict):
            return
        if "properties" in sub:
            self.collect(sub, path, _anchor(path), f"`{path}`")
        elif isinstance(sub.get("items"), dict):
            self._collect_nested(sub["items"], path + "[]")

    def table(self, schema: dict[str, Any], path: str) -> list[str]:
        """The property table of one object."""
        required = set(schema.get("required", []))
        unknown = required - set(schema.get("properties", {}))
        rows = ["| name | type | required | description | constraints |",
                "|---|---|---|---|---|"]
        for key, sub in schema.get("properties", {}).items():
            where = f"{path}.{key}" if path else key
            description = sub.get("description", "") if isinstance(sub, dict) else ""
            if not description and isinstance(sub, dict) and "$ref" in sub:
                description = self.referred_description(sub["$ref"])
            rows.append(f"| {_code(key)} | {_flat(self.type_of(sub, where))} | "
                        f"{'yes' if key in required else 'no'} | {_cell(description)} | "
                        f"{_flat(self.constraints_of(sub, where))} |")
        # Required here, defined by a schema this one is also (allOf): say where to look.
        defined_by = ", ".join(self.type_of(s, path) for s in schema.get("allOf", [])
                               if isinstance(s, dict) and "$ref" in s)
        for key in sorted(unknown):
            where = f"defined by {defined_by}" if defined_by else ""
            rows.append(f"| {_code(key)} | see description | yes | {where} | |")
        if len(rows) == 2:
            return []
        own = self.constraints_of({k: v for k, v in schema.items() if k != "properties"},
                                  path or "(root)")
        return rows + (["", f"The object as a whole: {own}."] if own else [])

    def referred_description(self, ref: str) -> str:
        target, _, pointer = ref.partition("#")
        data = self.data if not target else json.loads(
            (SCHEMAS / target).read_text(encoding="utf-8"))
        node: Any = data
        for part in pointer.strip("/").split("/") if pointer else []:
            node = node.get(part, {}) if isinstance(node, dict) else {}
        return str(node.get("description", "")) if isinstance(node, dict) else ""

    def member_statement(self, key: str, sub: Any, path: str) -> str:
        """What one member must be, as the second half of a sentence about it."""
        name = _code(key)
        if isinstance(sub, dict) and set(sub) == {"$ref"}:
            if sub["$ref"].endswith("#/$defs/absent"):
                return f"{name} is absent"
            return f"{name} is a {self.ref_link(sub['$ref'])}"
        if isinstance(sub, dict) and set(sub) == {"const"}:
            return f"{name} is {_code(sub['const'])}"
        if isinstance(sub, dict) and set(sub) == {"enum"}:
            return f"{name} is one of " + ", ".join(_code(v) for v in sub["enum"])
        if isinstance(sub, dict) and "properties" in sub and set(sub) <= {
                "type", "properties", "required"}:
            return f"{name} is an object whose {self.clause(sub, path)}"
        if isinstance(sub, dict) and set(sub) == {"type"} and isinstance(sub["type"], str):
            return f"{name} is {'an' if sub['type'][0] in 'aeiou' else 'a'} {sub['type']}"
        if isinstance(sub, dict) and set(sub) <= set(_STRUCTURE) - {"properties"} | {
                "minimum", "maximum", "minLength", "maxLength", "minItems", "maxItems",
                "pattern", "exclusiveMinimum"} and "type" not in sub and "$ref" not in sub:
            return f"{name} " + self.constraints_of(sub, path)
        return f"{name}: {self.describe(sub, path)}"

    def clause(self, schema: Any, path: str) -> str:
        """A subschema of ``if``, ``then`` or ``else`` as a clause: members joined by *and*."""
        if not isinstance(schema, dict):
            return self.describe(schema, path)
        parts = [self.member_statement(k, v, f"{path}.{k}")
                 for k, v in schema.get("properties", {}).items()]
        stated = set(schema.get("properties", {}))
        missing = [r for r in schema.get("required", []) if r not in stated]
        parts += [f"{_code(r)} is present" for r in missing]
        rest = {k: v for k, v in schema.items() if k not in ("properties", "required")}
        if rest:
            parts.append(self.describe(rest, path))
        return " and ".join(parts) if parts else "anything"

    def conditional_rules(self, schema: dict[str, Any], path: str) -> list[str]:
        """``if``/``then``/``else`` and ``allOf`` branches of an object, each in one line."""
        rules = []
        branches = [schema] if "if" in schema else []
        branches += [s for s in schema.get("allOf", []) if isinstance(s, dict) and "if" in s]
        for branch in branches:
            condition = self.clause(branch["if"], f"{path}/if")
            if "then" in branch:
                rules.append(f"- When {condition}: {self.clause(branch['then'], path)}.")
            if "else" in branch:
                rules.append(f"- Otherwise: {self.clause(branch['else'], path)}.")
        return rules

    # -------------------------------------------------------------- the page

    def markdown(self) -> str:
        data = self.data
        self.collect(data, "", "properties", "Properties")
        for definition in data.get("$defs", {}):
            self.anchors[f"$defs/{definition}"] = f"def-{definition}"
        download = served_path(data["$id"], self.name).removeprefix("schemas/")
        lines = [f"# {data.get('title', self.name)}", "", _cell(data.get("description", "")), "",
                 f"`$id`: [`{data['$id']}`]({data['$id']}) · download "
                 f"[{self.name}.schema.json]({download})", ""]
        if data.get("x-json-lines") is True:
            lines += ["It describes one record of a JSON Lines file (`x-json-lines`): "
                      f"`teamwire schema validate {self.name} FILE` checks each line of FILE.",
                      ""]
        if data.get("properties"):
            lines += self.object_sections(data, "")
        elif "type" in data or "$ref" in data:
            lines += ["## The document", "", _sentence(self.describe(data, "(root)")), ""]
        definitions = data.get("$defs", {})
        if definitions:
            lines += ["## Definitions {#definitions}", "",
                      "Shared pieces other schemas refer to with `$ref`.", ""]
            for definition, sub in definitions.items():
                lines += [f"### `{definition}` {{#def-{definition}}}", ""]
                if isinstance(sub, dict) and sub.get("description"):
                    lines += [_cell(sub["description"]), ""]
                if isinstance(sub, dict) and "properties" in sub:
                    self.collect(sub, f"$defs/{definition}", f"def-{definition}", definition)
                    lines += self.object_sections(sub, f"$defs/{definition}", level=4,
                                                  first_heading=False)
                else:
                    lines += [_sentence(self.describe(sub, f"$defs/{definition}")), ""]
        lines += self.examples_section()
        source = json.dumps(data, ensure_ascii=False, indent=2)
        lines += ["## Source {#source}", "", '??? note "' + self.name + '.schema.json"', "",
                  "    ```json", *(f"    {line}" for line in source.splitlines()), "    ```", ""]
        return "\n".join(lines)

    def object_sections(self, schema: dict[str, Any], path: str, level: int = 2,
                        first_heading: bool = True) -> list[str]:
        """The tables of an object and of every object nested in it, in reading order."""
        lines: list[str] = []
        nested = [(path, schema)]
        while nested:
            where, node = nested.pop(0)
            if where != path or first_heading:
                heading = "Properties" if where == path else f"`{where.rpartition('/')[2]}`"
                lines += [f"{'#' * level} {heading} {{#{self.anchors[where]}}}", ""]
                if where != path and node.get("description"):
                    lines += [_cell(node["description"]), ""]
            lines += [*self.table(node, where), ""]
            rules = self.conditional_rules(node, where)
            if rules:
                lines += ["Conditional rules:", "", *rules, ""]
            for key, sub in node.get("properties", {}).items():
                self._nested_objects(sub, f"{where}.{key}" if where else key, nested)
        return lines

    def _nested_objects(self, sub: Any, where: str,
                        nested: list[tuple[str, dict[str, Any]]]) -> None:
        if not isinstance(sub, dict):
            return
        if "properties" in sub and where in self.anchors:
            nested.append((where, sub))
        elif isinstance(sub.get("items"), dict):
            self._nested_objects(sub["items"], where + "[]", nested)

    def examples_section(self) -> list[str]:
        """The shipped examples: valid ones in full, invalid ones by name with their text."""
        folder = EXAMPLES / self.name
        if not folder.is_dir():
            return []
        lines = ["## Examples {#examples}", "",
                 f"Shipped in `spec/schemas/examples/{self.name}/` and checked by the test "
                 "suite: each valid example validates, each invalid one does not.", ""]
        for title, files in (("Valid", sorted(folder.glob("*.json"))),
                             ("Invalid", sorted((folder / "invalid").glob("*.json")))):
            if not files:
                continue
            lines += [f"### {title} {{#examples-{title.lower()}}}", ""]
            for path in files:
                text = path.read_text(encoding="utf-8").rstrip("\n")
                try:
                    json.loads(text)
                except ValueError as exc:
                    raise PluginError(f"{path}: not JSON: {exc}") from exc
                label = path.stem.replace("-", " ")
                lines += [f'??? example "{label}"', "", "    ```json",
                          *(f"    {line}" for line in text.splitlines()), "    ```", ""]
        return lines


def served_path(schema_id: str, name: str, site_url: str = SITE_URL) -> str:
    """Where a schema is served in the built site: the path of its ``$id`` under
    ``site_url``. An ``$id`` outside the site, or not named for its file, stops the build."""
    parts, base = urlsplit(schema_id), urlsplit(site_url)
    root = base.path if base.path.endswith("/") else base.path + "/"
    if not parts.path.endswith(f"/{name}.schema.json"):
        raise PluginError(f"{name}: $id {schema_id!r} does not end with the file's name")
    if (parts.scheme, parts.netloc) != (base.scheme, base.netloc) or \
            not parts.path.startswith(root):
        raise PluginError(f"{name}: $id {schema_id!r} is not under site_url {site_url}")
    return parts.path[len(root):]


def schema_names() -> list[str]:
    """The shipped schemas, by file name."""
    return sorted(p.name.removesuffix(".schema.json") for p in SCHEMAS.glob("*.schema.json"))


def schema_page(name: str) -> str:
    """The Markdown of the reference page of schema NAME."""
    data = json.loads((SCHEMAS / f"{name}.schema.json").read_text(encoding="utf-8"))
    for member in ("$id", "title", "description"):
        if not data.get(member):
            raise PluginError(f"{name}.schema.json has no {member}")
    return SchemaPage(name, data).markdown()


def index_page() -> str:
    """The JSON Schemas page: one row per schema."""
    lines = ["# JSON Schemas", "",
             "JSON Schema 2020-12 documents shipped in `spec/schemas/`; "
             "`teamwire schema list | show NAME | path NAME | validate NAME FILE` reads the "
             "same files. Each page below has a table for every object the schema describes, "
             "its conditional rules, its examples and its source; each schema is served at the "
             "address its `$id` names, so a validator that fetches `$id` finds it.", "",
             "| schema | title | download |", "|---|---|---|"]
    for name in schema_names():
        data = json.loads((SCHEMAS / f"{name}.schema.json").read_text(encoding="utf-8"))
        download = served_path(data["$id"], name)
        lines.append(f"| [{name}](schemas/{name}.md) | {_cell(data.get('title', name))} | "
                     f"[{name}.schema.json]({download}) |")
    return "\n".join(lines) + "\n"


def on_files(files: Files, config: Any) -> Files:
    """Add a page per schema, the index, and each schema file at its ``$id``'s path."""
    site_url = config.get("site_url") or ""
    if site_url.rstrip("/") != SITE_URL.rstrip("/"):
        raise PluginError(f"mkdocs.yml's site_url is {site_url!r}, but the schemas' $ids "
                          f"name {SITE_URL}: a schema would not be found at its $id")
    files.append(File.generated(config, "schemas.md", content=index_page()))
    for name in schema_names():
        path = SCHEMAS / f"{name}.schema.json"
        files.append(File.generated(config, f"schemas/{name}.md", content=schema_page(name)))
        data = json.loads(path.read_text(encoding="utf-8"))
        files.append(File.generated(config, served_path(data["$id"], name, site_url),
                                    abs_src_path=str(path)))
    return files
