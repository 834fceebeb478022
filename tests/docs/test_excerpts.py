"""The code excerpts of the site (docs/hooks/excerpts.py): a page shows a region of a source
file exactly as the file has it, numbered as the file numbers it, and a marker whose region
is missing, or a file whose region markers do not pair up, fails the build with a message
that says what to fix."""

from __future__ import annotations

import logging
import re
from pathlib import Path

import pytest
from mkdocs.exceptions import PluginError

from tests.docs.hook_modules import load

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
ROUTER = "tests/conformance/routers/mini_router.mjs"
WALKTHROUGH = DOCS / "certify-walkthrough.md"

excerpts = load("excerpts")


def _blocks(markdown: str) -> list[tuple[int, list[str]]]:
    """Each fenced block of rendered markdown: its first line number and its lines."""
    found = re.findall(r'^```+ \{[^}]*linenums="(\d+)" \}\n(.*?)\n```+$', markdown, re.S | re.M)
    return [(int(first), body.split("\n")) for first, body in found]


def test_the_walkthrough_shows_every_region_of_the_router_as_the_file_has_it() -> None:
    text = WALKTHROUGH.read_text(encoding="utf-8")
    asked = [m.group("what").split() for m in excerpts.MARKER.finditer(text)]
    assert asked and all(path == ROUTER for path, _ in asked)
    file_lines = (ROOT / ROUTER).read_text(encoding="utf-8").splitlines()
    marked = re.findall(r"^\s*// region: (\S+)$", "\n".join(file_lines), re.M)
    # no region of the file goes unexplained, and none is shown twice
    assert sorted(name for _, name in asked) == sorted(marked)

    out = excerpts.render_markers(text, "certify-walkthrough.md")
    assert "teamwire-excerpt" not in out
    blocks = _blocks(out)
    assert len(blocks) == len(asked)
    for (_, name), (first, lines) in zip(asked, blocks, strict=True):
        assert file_lines[first - 2].strip() == f"// region: {name}"
        original = file_lines[first - 1:first - 1 + len(lines)]
        assert file_lines[first - 1 + len(lines)].strip() == f"// endregion: {name}"
        # the same lines, at most shifted left as a whole (a region inside a function)
        indent = min(len(line) - len(line.lstrip()) for line in original if line.strip())
        assert lines == [line[indent:] for line in original], name
        assert any(line.strip() for line in lines)
        assert f"lines {first}–{first + len(lines) - 1} (region <code>{name}</code>)" in out


def test_the_deliver_region_is_the_routing_decision() -> None:
    region = excerpts.excerpt(ROUTER, "deliver")
    assert region.lines[0].startswith("function deliver(")
    assert region.lines[-1] == "}"
    assert {'"inline"', '"queued"', '"new_turn"'} <= set(re.findall(r'"[a-z_]+"',
                                                                     "\n".join(region.lines)))


def _write(tmp_path: Path, text: str, name: str = "router.mjs") -> str:
    (tmp_path / name).write_text(text, encoding="utf-8")
    return name


@pytest.mark.parametrize(("text", "message"), [
    ("// region: a\nx();\n", "router.mjs:1: region 'a' is never closed (write "
                             "'// endregion: a' after its last line)"),
    ("// region: a\nx();\n// endregion: b\n", "router.mjs:3: endregion 'b' closes region 'a' "
                                             "(opened on line 1): the names differ"),
    ("x();\n// endregion: a\n", "router.mjs:2: endregion 'a' closes no open region"),
    ("// region: a\n// region: b\nx();\n// endregion: b\n// endregion: a\n",
     "router.mjs:2: region 'b' opens inside region 'a'"),
    ("// region: a\nx();\n// endregion: a\n// region: a\ny();\n// endregion: a\n",
     "router.mjs:4: region 'a' is opened a second time (first on line 1)"),
    ("// region: a\n\n// endregion: a\n", "router.mjs:1: region 'a' is empty"),
    ("// region: Big_Name\nx();\n// endregion: Big_Name\n", "router.mjs:1: region 'Big_Name'"),
])
def test_markers_that_do_not_pair_up_fail_with_the_line_to_fix(tmp_path: Path, text: str,
                                                               message: str) -> None:
    path = _write(tmp_path, text)
    with pytest.raises(PluginError) as caught:
        excerpts.render_block(path, "a", tmp_path)
    assert message in str(caught.value)


def test_a_missing_region_names_the_regions_the_file_has(tmp_path: Path) -> None:
    path = _write(tmp_path, "// region: start\nmain();\n// endregion: start\n"
                            "  # region: tail\n  end()\n  # endregion: tail\n")
    with pytest.raises(PluginError) as caught:
        excerpts.render_markers(f"# Page\n\n<!-- teamwire-excerpt: {path} middle -->\n",
                                "page.md", tmp_path)
    assert str(caught.value) == (
        "teamwire-excerpt: router.mjs has no region 'middle' (it has: start, tail); "
        "mark it with '// region: middle' and '// endregion: middle'")
    out = excerpts.render_markers(f"<!-- teamwire-excerpt: {path} tail -->\n", "p.md", tmp_path)
    assert _blocks(out) == [(5, ["end()"])]


@pytest.mark.parametrize(("marker", "message"), [
    ("<!-- teamwire-excerpt: router.mjs -->", "write '<!-- teamwire-excerpt: PATH REGION -->'"),
    ("<!-- teamwire-excerpt: nowhere.mjs start -->", "no file 'nowhere.mjs' in the repository"),
    ("<!-- teamwire-excerpt: ../outside.mjs start -->", "'../outside.mjs' lies outside the "
                                                       "repository"),
])
def test_a_marker_that_names_no_file_or_region_fails(tmp_path: Path, marker: str,
                                                     message: str) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    _write(root, "// region: start\nmain();\n// endregion: start\n")
    _write(tmp_path, "// region: start\nmain();\n// endregion: start\n", "outside.mjs")
    with pytest.raises(PluginError) as caught:
        excerpts.render_markers(f"{marker}\n", "page.md", root)
    assert message in str(caught.value)


def test_a_code_block_that_holds_a_fence_gets_a_longer_one(tmp_path: Path) -> None:
    path = _write(tmp_path, "# region: doc\ntext = '''\n```\n'''\n# endregion: doc\n", "m.py")
    out = excerpts.render_block(path, "doc", tmp_path)
    assert '\n```` { .python .tw-excerpt linenums="2" }\n' in out
    assert out.endswith("\n````\n")


def test_a_build_whose_page_asks_for_a_missing_region_fails(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """Through mkdocs itself, as ``mkdocs build --strict`` runs the hook."""
    from mkdocs.commands.build import build
    from mkdocs.config import load_config
    from mkdocs.exceptions import Abort

    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "index.md").write_text(
        f"# Page\n\n<!-- teamwire-excerpt: {ROUTER} no-such-region -->\n", encoding="utf-8")
    config_file = tmp_path / "mkdocs.yml"
    config_file.write_text(
        "site_name: t\ntheme: mkdocs\nstrict: true\n"
        f"hooks:\n  - {DOCS / 'hooks' / 'excerpts.py'}\n", encoding="utf-8")
    config = load_config(str(config_file), site_dir=str(tmp_path / "site"), strict=True)
    with caplog.at_level(logging.ERROR), pytest.raises(Abort):
        build(config)
    assert f"{ROUTER} has no region 'no-such-region' (it has: " in caplog.text
    assert not (tmp_path / "site" / "index.html").exists()
