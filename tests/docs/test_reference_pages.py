"""The schema reference pages, the schemas served at their $ids, and the command line page."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import click
import pytest
from mkdocs.exceptions import PluginError

from tests.docs.hook_modules import load

ROOT = Path(__file__).resolve().parents[2]
SCHEMAS = ROOT / "spec" / "schemas"
NAMES = sorted(p.name.removesuffix(".schema.json") for p in SCHEMAS.glob("*.schema.json"))

schema_pages = load("schema_pages")
reference_pages = load("reference_pages")


def _schema(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((SCHEMAS / f"{name}.schema.json").read_text("utf-8"))
    return data


def _rows(page: str, anchor: str) -> dict[str, list[str]]:
    """The property table under the heading with ANCHOR: name -> its cells."""
    start = page.index(f"{{#{anchor}}}")
    rows: dict[str, list[str]] = {}
    for line in page[start:].splitlines()[1:]:
        if line.startswith("#"):
            break
        if line.startswith("| `"):
            cells = [c.strip() for c in re.split(r"(?<!\\)\|", line)[1:-1]]
            rows[cells[0].strip("`")] = cells
    return rows


@pytest.mark.parametrize("name", NAMES)
def test_every_property_of_every_object_is_a_row_with_its_required_flag(name: str) -> None:
    data = _schema(name)
    page = schema_pages.schema_page(name)
    objects = [("properties", data)] if data.get("properties") else []
    objects += [(f"def-{key}", sub) for key, sub in data.get("$defs", {}).items()
                if isinstance(sub, dict) and sub.get("properties")]
    for anchor, node in objects:
        rows = _rows(page, anchor)
        assert set(rows) == {*node["properties"], *node.get("required", [])}, anchor
        for key in rows:
            assert rows[key][2] == ("yes" if key in node.get("required", []) else "no"), key


@pytest.mark.parametrize("name", NAMES)
def test_every_definition_has_a_section_and_every_example_is_shown(name: str) -> None:
    data = _schema(name)
    page = schema_pages.schema_page(name)
    for key in data.get("$defs", {}):
        assert f"{{#def-{key}}}" in page
    examples = SCHEMAS / "examples" / name
    for path in [*examples.glob("*.json"), *examples.glob("invalid/*.json")]:
        assert f'??? example "{path.stem.replace("-", " ")}"' in page


def test_constraints_and_conditions_are_written_out() -> None:
    page = schema_pages.schema_page("message")
    assert _rows(page, "properties")["round"][4] == "≥ 0"
    assert "at least 1 item; each item at least 1 character" in \
        _rows(page, "prop-acceptance")["criteria"][4]
    assert "- When `type` is `answer`: `question_id` is present." in page
    assert "- Otherwise: `question_id` is absent." in page


def test_prose_from_a_schema_is_text_not_markup() -> None:
    page = schema_pages.schema_page("message")
    # The <Output> tag and the {Role Name}_{n} pattern must reach the reader as written.
    assert "share the &lt;Output&gt; tag" in page
    assert r"'{Role Name}\_{n}'" in page


def test_a_keyword_the_page_writer_does_not_know_stops_the_build() -> None:
    page = schema_pages.SchemaPage("x", {"$id": "https://teamwire.dev/schemas/1.0/x.schema.json",
                                         "type": "object",
                                         "properties": {"a": {"type": "string",
                                                              "contentEncoding": "base64"}}})
    with pytest.raises(PluginError, match="contentEncoding"):
        page.markdown()


def test_a_ref_to_a_missing_schema_stops_the_build() -> None:
    page = schema_pages.SchemaPage("x", {"$id": "https://teamwire.dev/schemas/1.0/x.schema.json",
                                         "$ref": "nowhere.schema.json#/$defs/a"})
    with pytest.raises(PluginError, match=r"nowhere\.schema\.json"):
        page.markdown()


@pytest.mark.parametrize("schema_id", [
    "https://elsewhere.example/schemas/1.0/message.schema.json",
    "https://teamwire.dev/schemas/1.0/other.schema.json",
])
def test_an_id_the_site_cannot_serve_stops_the_build(schema_id: str) -> None:
    with pytest.raises(PluginError):
        schema_pages.served_path(schema_id, "message")


def test_each_schema_is_served_at_the_path_its_id_names() -> None:
    from mkdocs.config import load_config
    from mkdocs.structure.files import Files

    config = load_config(str(ROOT / "mkdocs.yml"))
    # Outside a build no plugin is running; mkdocs names one in every file it generates.
    config.plugins._current_plugin = "schema_pages"
    files = schema_pages.on_files(Files([]), config)
    served = {f.dest_uri: f for f in files if f.dest_uri.endswith(".schema.json")}
    for name in NAMES:
        schema_id = _schema(name)["$id"]
        assert schema_id.startswith(config["site_url"])
        dest = schema_id.removeprefix(config["site_url"])
        assert dest in served, name
        assert Path(served[dest].abs_src_path) == SCHEMAS / f"{name}.schema.json"


def test_a_site_url_other_than_the_ids_stops_the_build() -> None:
    from mkdocs.config import load_config
    from mkdocs.structure.files import Files

    config = load_config(str(ROOT / "mkdocs.yml"))
    # Outside a build no plugin is running; mkdocs names one in every file it generates.
    config.plugins._current_plugin = "schema_pages"
    config["site_url"] = "https://example.org/"
    with pytest.raises(PluginError, match="site_url"):
        schema_pages.on_files(Files([]), config)


def _commands() -> list[tuple[str, click.Command]]:
    from teamwire.cli import main

    found: list[tuple[str, click.Command]] = []

    def walk(command: click.Command, path: str, ctx: click.Context) -> None:
        found.append((path, command))
        if isinstance(command, click.Group):
            for name in command.list_commands(ctx):
                child = command.get_command(ctx, name)
                assert child is not None
                walk(child, f"{path} {name}", click.Context(child, info_name=name, parent=ctx))

    root = click.Context(main, info_name="teamwire")
    for name in main.list_commands(root):
        command = main.get_command(root, name)
        assert command is not None
        walk(command, f"teamwire {name}", root)
    return found


def test_the_command_line_page_has_every_command_and_option() -> None:
    page = reference_pages.cli_page()
    for path, command in _commands():
        assert f"`{path}` {{#{path.replace(' ', '-')}}}" in page, path
        section = page.split(f"`{path}` {{#", 1)[1]
        for param in command.params:
            if isinstance(param, click.Option) and not param.hidden:
                assert f"`{param.opts[0]}`" in section.split("\n#", 1)[0], (path, param.opts)


def test_an_option_s_help_and_default_come_from_click() -> None:
    page = reference_pages.cli_page()
    lint = page.split("`teamwire lint` {#teamwire-lint}", 1)[1].split("\n#", 1)[0]
    row = next(line for line in lint.splitlines() if line.startswith("| `-f`, `--format`"))
    assert "`text`" in row.split("|")[-2]
    assert "Exit codes" in lint


def test_drawing_the_page_leaves_every_command_s_help_options_alone() -> None:
    from click.testing import CliRunner

    from teamwire.cli import main

    reference_pages.cli_page()
    for path, _ in _commands():
        for flag in ("-h", "--help"):
            result = CliRunner().invoke(main, [*path.split()[1:], flag])
            assert result.exit_code == 0, (path, flag, result.output)
