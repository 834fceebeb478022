"""The shared "did you mean" of every command that takes a name."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from teamwire.cli import main
from teamwire.near_names import closest, did_you_mean


def test_the_closest_name_or_none() -> None:
    assert closest("bundel", ["bundle", "tools"]) == "bundle"
    assert closest("zzz", ["bundle", "tools"]) is None
    assert closest("session-bundle", ["bundle", "tools"], cutoff=0.75) is None
    assert closest("session-bundle", ["bundle", "tools"], cutoff=0.75, by_words=True) == "bundle"
    assert did_you_mean("tols", ["tools"]) == " (did you mean 'tools'?)"
    assert did_you_mean("zzz", ["tools"]) == ""


def test_envelope_render_suggests_the_key_meant(tmp_path: Path) -> None:
    source = tmp_path / "e.json"
    source.write_text(json.dumps({"sender": "Team Leader", "label": "提问", "id": "ask_tl_001",
                                  "tag": "Ask", "contnet": "hi"}), encoding="utf-8")
    result = CliRunner().invoke(main, ["envelope", "render", str(source)])
    assert result.exit_code == 1
    assert "unknown key \"contnet\" (did you mean 'content'?)" in result.stderr
