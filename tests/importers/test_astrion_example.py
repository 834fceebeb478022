"""The worked example of docs/astrion.md: its files are what the transcript sources write, and
the commands the page shows give the output it shows. The import keeps astrion today's
display-name targets, which name the bundle's entries."""

from __future__ import annotations

import json
import os
import re
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner
from conformance.sources.transcripts import make

from teamwire.cli import main

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "astrion"
PAGE = ROOT / "docs" / "astrion.md"
_BLOCK = re.compile(r"<!-- example:begin -->\n```console\n(.*?)```\n<!-- example:end -->", re.S)


def _documented() -> list[tuple[list[str], str]]:
    """(arguments after ``teamwire``, expected output) of each command the page shows."""
    found = _BLOCK.search(PAGE.read_text(encoding="utf-8"))
    assert found is not None, "docs/astrion.md lost its example block"
    commands: list[tuple[list[str], str]] = []
    for line in found.group(1).splitlines(keepends=True):
        if line.startswith("$ teamwire "):
            commands.append((line[len("$ teamwire "):].split(), ""))
        elif line.startswith("$ cd "):
            assert line.strip() == "$ cd examples/astrion"
        else:
            args, out = commands[-1]
            commands[-1] = (args, out + line)
    return commands


@pytest.fixture
def in_example(tmp_path: Path) -> Iterator[Path]:
    shutil.copytree(EXAMPLE / "data", tmp_path / "data")
    cwd = os.getcwd()
    os.chdir(tmp_path)
    yield tmp_path
    os.chdir(cwd)


def test_the_example_files_are_what_the_sources_write() -> None:
    written = make.example_files()
    on_disk = {str(p.relative_to(EXAMPLE / "data")): p.read_text(encoding="utf-8")
               for p in (EXAMPLE / "data").rglob("*") if p.is_file()}
    assert on_disk == written, "run python -m conformance.sources.transcripts.make"


def test_the_documented_commands_give_the_documented_output(in_example: Path) -> None:
    commands = _documented()
    assert [args[:2] for args, _ in commands] == [["import", "astrion"], ["lint", "--profile"]]
    codes = []
    for args, output in commands:
        result = CliRunner().invoke(main, args)
        assert result.output == output, " ".join(args)
        codes.append(result.exit_code)
    assert codes == [0, 1]  # the page says: imported with warnings, then the four breaches


def test_the_import_keeps_display_name_targets_that_name_the_entries(in_example: Path) -> None:
    CliRunner().invoke(main, ["import", "astrion", "data", "-o", "bundles"])
    [path] = (in_example / "bundles").glob("*.json")
    bundle = json.loads(path.read_text(encoding="utf-8"))
    agents = bundle["agents"]
    named: list[str] = []
    for message in agents["Team Leader"]["messages"]:
        for call in message.get("tool_calls") or ():
            arguments = json.loads(call["function"]["arguments"])
            assert "agent_id" not in arguments  # astrion today numbers alone
            named += [arguments["display_name"]] if "display_name" in arguments else []
            named += arguments.get("display_names", [])
    assert set(named) == {"UI Operator_1", "Full-Stack Engineer_1"}
    for name in named:
        assert name in agents
    # The entry's agent_id is the number of the display name, not astrion's own number.
    engineer = agents["Full-Stack Engineer_1"]
    assert (engineer["role_id"], engineer["agent_id"]) == ("full-stack-engineer", 1)
    assert engineer["astrion"]["agent_id"] == 2
    # The peer's ask names its target by display name too, and reaches it.
    asks = [json.loads(c["function"]["arguments"]) for m in engineer["messages"]
            for c in m.get("tool_calls") or () if c["function"]["name"] == "ask_other_agent"]
    assert asks and all(a["target_display_name"] == "UI Operator_1" for a in asks)
