"""mkdocs hook: searching an id lands on the statement that defines it.

The theme's search finds sections by their title first. A requirement is a sentence inside a
section, not a title of its own, so searching ``TW-ROUTE-014`` would list every section that
mentions it, in no useful order. This hook adds one entry per requirement to the search
index the theme wrote, titled with the id and pointing at the statement's anchor
(``spec/07-routing/#TW-ROUTE-014``), so it ranks first. Lint rules (``rules/#tw402``), tools
(``spec/06-tools/#ask_master``), scenarios and run checks (``scenarios/#batch-drain``) are
section titles already. The theme's query parser splits a query at hyphens, so the index
splits ids the same way (mkdocs.yml) and the entry titled with the id holds all its words.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from mkdocs.exceptions import PluginError

ROOT = Path(__file__).resolve().parents[2]


def requirement_entries(use_directory_urls: bool = True) -> list[dict[str, Any]]:
    """One search entry per requirement of spec/requirements.json."""
    data = json.loads((ROOT / "spec" / "requirements.json").read_text(encoding="utf-8"))
    entries = []
    for req in data["requirements"]:
        chapter = str(req["section"]).partition("#")[0]
        if not (ROOT / "spec" / chapter).is_file():
            raise PluginError(f"{req['id']}: its section names {chapter}, which spec/ lacks")
        page = chapter.removesuffix(".md") + ("/" if use_directory_urls else ".html")
        entries.append({"location": f"spec/{page}#{req['id']}",
                        "title": f"{req['id']} ({req['level']})",
                        "text": f"<p>{req['summary']}</p>"})
    return entries


def on_post_build(config: Any) -> None:
    """Add the requirement entries to the index the search plugin has just written."""
    index = Path(config["site_dir"]) / "search" / "search_index.json"
    if not index.is_file():
        raise PluginError(f"{index} is missing: the search plugin must run before this hook")
    data = json.loads(index.read_text(encoding="utf-8"))
    data["docs"].extend(requirement_entries(config["use_directory_urls"]))
    index.write_text(json.dumps(data, ensure_ascii=False, separators=(",", ":")),
                     encoding="utf-8")
