"""mkdocs hook: code excerpts taken from the repository's files while the site is built, so a
page that walks through a program shows the program as it is, never a copy of it.

A source file names its regions with comment lines of their own::

    // region: deliver
    function deliver(agent, text) { ... }
    // endregion: deliver

(``#`` comments work the same way in Python or shell files). A page asks for a region with
a marker on a line of its own:

    <!-- teamwire-excerpt: tests/conformance/routers/mini_router.mjs deliver -->

and gets a fenced code block of the region's lines, numbered as they are numbered in the
file, with a caption that names the file and the lines. A marker that names a file outside
the repository or one that does not exist, a region the file does not have, or a file whose
markers do not pair up (a region opened twice, never closed, closed under another name, or
opened inside another) fails the build with the file and line to fix.
"""

from __future__ import annotations

import re
import textwrap
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mkdocs.exceptions import PluginError
from mkdocs.structure.files import Files

ROOT = Path(__file__).resolve().parents[2]
MARKER = re.compile(r"^<!-- teamwire-excerpt:(?P<what>.*?)-->[ \t]*$", re.MULTILINE)
_REGION = re.compile(r"^[ \t]*(?://|#)[ \t]*(?P<kind>region|endregion):[ \t]*(?P<name>\S*)[ \t]*$")
_NAME = re.compile(r"[a-z0-9][a-z0-9-]*")
LANGUAGES = {".mjs": "javascript", ".js": "javascript", ".py": "python", ".sh": "bash",
             ".ts": "typescript"}
"""The highlighter's language for a file's suffix; any other file is shown as text."""


@dataclass(frozen=True)
class Region:
    """One named region of a source file: its lines, without the marker lines."""

    name: str
    first: int
    """The number (1-based) of the region's first line, the one after ``region: NAME``."""
    lines: tuple[str, ...]

    @property
    def last(self) -> int:
        return self.first + len(self.lines) - 1


def regions(text: str, where: str) -> dict[str, Region]:
    """Every region of the source ``text`` (named ``where`` in errors), by name; PluginError
    when the markers do not pair up or a region is empty."""
    found: dict[str, Region] = {}
    lines = text.splitlines()
    open_name: str | None = None
    open_at = 0
    for number, line in enumerate(lines, start=1):
        match = _REGION.match(line)
        if match is None:
            continue
        kind, name = match.group("kind"), match.group("name")
        if not _NAME.fullmatch(name):
            raise PluginError(f"teamwire-excerpt: {where}:{number}: {kind} {name!r}: a region's "
                              "name is lower-case letters, digits and hyphens")
        if kind == "region":
            if open_name is not None:
                raise PluginError(f"teamwire-excerpt: {where}:{number}: region {name!r} opens "
                                  f"inside region {open_name!r} (opened on line {open_at}), "
                                  "which is not closed yet; regions do not nest")
            if name in found:
                raise PluginError(f"teamwire-excerpt: {where}:{number}: region {name!r} is "
                                  f"opened a second time (first on line {found[name].first - 1})")
            open_name, open_at = name, number
            continue
        if open_name is None:
            raise PluginError(f"teamwire-excerpt: {where}:{number}: endregion {name!r} closes "
                              "no open region")
        if name != open_name:
            raise PluginError(f"teamwire-excerpt: {where}:{number}: endregion {name!r} closes "
                              f"region {open_name!r} (opened on line {open_at}): the names differ")
        body = tuple(lines[open_at:number - 1])
        if not any(part.strip() for part in body):
            raise PluginError(f"teamwire-excerpt: {where}:{open_at}: region {name!r} is empty")
        found[name] = Region(name, open_at + 1, body)
        open_name = None
    if open_name is not None:
        raise PluginError(f"teamwire-excerpt: {where}:{open_at}: region {open_name!r} is never "
                          f"closed (write '// endregion: {open_name}' after its last line)")
    return found


def source(path: str, root: Path = ROOT) -> Path:
    """The file ``path`` (relative to the repository's root) names; PluginError when it lies
    outside the repository or is not a file."""
    file = (root / path).resolve()
    if not file.is_relative_to(root.resolve()):
        raise PluginError(f"teamwire-excerpt: {path!r} lies outside the repository")
    if not file.is_file():
        raise PluginError(f"teamwire-excerpt: no file {path!r} in the repository")
    return file


def excerpt(path: str, name: str, root: Path = ROOT) -> Region:
    """Region ``name`` of the file ``path``; PluginError when there is none, saying which
    regions the file has."""
    file = source(path, root)
    found = regions(file.read_text(encoding="utf-8"), path)
    if name not in found:
        known = ", ".join(sorted(found)) or "none"
        raise PluginError(f"teamwire-excerpt: {path} has no region {name!r} (it has: {known}); "
                          f"mark it with '// region: {name}' and '// endregion: {name}'")
    return found[name]


def render_block(path: str, name: str, root: Path = ROOT) -> str:
    """The Markdown of one excerpt: a caption, then the region as a numbered code block."""
    region = excerpt(path, name, root)
    language = LANGUAGES.get(Path(path).suffix, "text")
    code = textwrap.dedent("\n".join(region.lines))
    fence = "```"
    while fence in code:
        fence += "`"
    return (f'<p class="tw-excerpt-caption" data-excerpt="{name}"><code>{path}</code>, '
            f"lines {region.first}–{region.last} (region <code>{name}</code>)</p>\n\n"
            f'{fence} {{ .{language} .tw-excerpt linenums="{region.first}" }}\n{code}\n{fence}\n')


def render_markers(markdown: str, page: str = "index.md", root: Path = ROOT) -> str:
    """``markdown`` of the page ``page`` with every excerpt marker replaced by its excerpt."""

    def block(match: re.Match[str]) -> str:
        what = match.group("what").split()
        if len(what) != 2:
            raise PluginError(f"teamwire-excerpt in {page}: {match.group(0).strip()!r}: write "
                              "'<!-- teamwire-excerpt: PATH REGION -->'")
        return render_block(what[0], what[1], root)

    return MARKER.sub(block, markdown)


def on_page_markdown(markdown: str, page: Any, config: Any, files: Files) -> str:
    """Put in the excerpts a page asks for."""
    if "teamwire-excerpt:" not in markdown:
        return markdown
    return render_markers(markdown, page.file.src_uri)
