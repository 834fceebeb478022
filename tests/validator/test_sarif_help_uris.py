"""Every SARIF rule descriptor links to the rule's entry on the published rules page."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

from teamwire.validator.docs import rules_markdown
from teamwire.validator.reporters.sarif import rules_json

ROOT = Path(__file__).resolve().parents[2]


def test_every_help_uri_is_an_anchor_of_the_site_s_rules_page() -> None:
    site_url = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))["site_url"]
    # mkdocs' toc slugs a heading `### TW001` to the anchor `tw001`.
    anchors = {code.lower() for code in
               re.findall(r"^### (\S+)$", rules_markdown(), re.MULTILINE)}
    descriptors = rules_json()
    assert descriptors
    for descriptor in descriptors:
        page, _, anchor = descriptor["helpUri"].partition("#")
        assert page == f"{site_url}rules/"
        assert anchor in anchors
