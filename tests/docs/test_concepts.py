"""The Concepts page links what it paraphrases: each requirement id to the chapter that
defines it, each scenario to a vector that exists."""

from __future__ import annotations

import json
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PAGE = (ROOT / "docs" / "concepts.md").read_text(encoding="utf-8")


def test_every_requirement_id_links_to_its_defining_chapter() -> None:
    index = {r["id"]: r for r in json.loads(
        (ROOT / "spec" / "requirements.json").read_text(encoding="utf-8"))["requirements"]}
    links = re.findall(r"\[(TW-[A-Z]+-\d{3})\]\(spec/([^)#]+)#([^)]+)\)", PAGE)
    assert len(links) >= 30
    for shown, chapter, anchor in links:
        assert shown == anchor and shown in index, shown
        assert str(index[shown]["section"]).partition("#")[0] == chapter, shown
    # no id mentioned in passing without its link
    bare = set(re.findall(r"TW-[A-Z]+-\d{3}", PAGE)) - {shown for shown, _, _ in links}
    assert not bare, sorted(bare)


def test_every_scenario_link_names_a_vector() -> None:
    named = set(re.findall(r"scenarios\.md#([a-z0-9-]+)", PAGE))
    assert len(named) >= 8
    for name in named:
        assert (ROOT / "conformance" / "scenarios" / f"{name}.json").is_file(), name
