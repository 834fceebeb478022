"""The package version, the changelog's latest release and every snippet that pins a
release name the same version."""

from __future__ import annotations

import re
from pathlib import Path

from teamwire._version import __version__

ROOT = Path(__file__).resolve().parents[2]
SNIPPET_FILES = [ROOT / "README.md", ROOT / ".pre-commit-hooks.yaml",
                 *sorted((ROOT / "docs").glob("*.md"))]
# `rev: vX`, `teamwire/teamwire@vX` (action and pip git URLs); a snippet pinned to a branch
# (`@main`) fails as well.
PIN = re.compile(r"rev:\s*([^\s`,]+)|teamwire/teamwire@([^\s\"'`,]+)")


def _released_headings() -> list[str]:
    text = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    return [h for h in re.findall(r"^## \[([^\]]+)\]", text, re.MULTILINE)
            if h != "Unreleased"]


def test_the_changelog_opens_with_unreleased_then_the_package_version() -> None:
    text = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    headings = re.findall(r"^## \[([^\]]+)\]", text, re.MULTILINE)
    assert headings[0] == "Unreleased"
    assert _released_headings()[0] == __version__


def test_every_snippet_pins_the_tag_of_the_package_version() -> None:
    pins = {(path.name, a or b) for path in SNIPPET_FILES
            for a, b in PIN.findall(path.read_text(encoding="utf-8"))}
    assert {name for name, _ in pins} >= {"README.md", "ci.md"}
    assert {pin for _, pin in pins} == {f"v{__version__}"}, sorted(pins)


def test_the_release_steps_name_the_tag_convention() -> None:
    guide = (ROOT / "docs" / "contributing.md").read_text(encoding="utf-8")
    assert "v<version>" in guide
    assert "src/teamwire/_version.py" in guide
