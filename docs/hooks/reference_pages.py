"""mkdocs hook: reference pages drawn from the normative sources when the site is built.

The envelope grammar gets a railroad diagram for every rule and terminal, converted from the
tree Lark's own grammar loader reads ``grammar/envelope.lark`` into (the JSON Schemas have
their own hook, ``schema_pages.py``). The command line reference is drawn from the click
commands themselves. A construct a converter does not know stops the build: a diagram or a table that leaves
something out would read as the whole truth.
"""

from __future__ import annotations

import html
import re
import unicodedata
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import click
import railroad
from lark import Token, Tree
from lark.exceptions import GrammarError
from lark.grammar import NonTerminal as LarkRule
from lark.grammar import Terminal as LarkTerminal
from lark.load_grammar import load_grammar
from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File, Files

ROOT = Path(__file__).resolve().parents[2]
GRAMMAR = ROOT / "grammar" / "envelope.lark"
ABNF = ROOT / "grammar" / "envelope.abnf"

# --------------------------------------------------------------------------- grammar


@dataclass(frozen=True)
class Definition:
    """One rule or terminal of a Lark grammar, as its loader read it."""

    name: str
    terminal: bool
    tree: Tree[Any]
    comment: str


def _comments(text: str) -> dict[str, str]:
    """The ``//`` comment lines right above each definition, by the name they stand above.

    Lark drops comments while it reads a grammar, so they are found in the text: a
    definition starts a line with its name (after ``?`` or ``!``).
    """
    found: dict[str, str] = {}
    above: list[str] = []
    for line in text.splitlines():
        if line.startswith("//"):
            above.append(line[2:].removeprefix(" "))
            continue
        match = re.match(r"[?!]?([A-Za-z_][A-Za-z0-9_]*)\s*(?:\.-?\d+\s*)?:", line)
        if match and above:
            found[match.group(1)] = "\n".join(above)
        above = []
    return found


def grammar_definitions(text: str, source: str = "envelope.lark") -> list[Definition]:
    """Every rule, then every terminal, of the grammar ``text``, in the order written."""
    try:
        grammar, _ = load_grammar(text, source, [], False)
    except GrammarError as exc:
        raise PluginError(f"{source}: Lark cannot load the grammar: {exc}") from exc
    comments = _comments(text)
    definitions = []
    for name, params, tree, _options in grammar.rule_defs:
        if params:
            raise PluginError(f"{source}: rule {name} is a template, which the diagrams do not draw")
        definitions.append(Definition(name, False, tree, comments.get(name, "")))
    for name, (tree, _priority) in grammar.term_defs:
        if tree is None:
            raise PluginError(f"{source}: terminal {name} is declared, not defined: nothing to draw")
        definitions.append(Definition(name, True, tree, comments.get(name, "")))
    return definitions


def _anchor(name: str) -> str:
    # Rule names are lowercase and terminal names uppercase in Lark, and ids are
    # case-sensitive: the bare name is a unique anchor. The page's own headings hold a '-',
    # which no Lark name does.
    return name


def _text_width(text: str) -> float:
    """The width the diagram's monospace font gives ``text``: wide (CJK) characters take two."""
    cells = sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)
    return cells * railroad.CHAR_WIDTH + 20


def _box(item: railroad.Terminal | railroad.NonTerminal) -> railroad.DiagramItem:
    item.width = _text_width(item.text)
    return item


def _symbol(value: Any, source: str) -> railroad.DiagramItem:
    """One ``value`` of the meta grammar: a rule, a terminal, a literal or a range."""
    if isinstance(value, LarkRule):
        return _box(railroad.NonTerminal(value.name, href=f"#{_anchor(value.name)}"))
    if isinstance(value, LarkTerminal):
        return _box(railroad.Terminal(value.name, href=f"#{_anchor(value.name)}"))
    if isinstance(value, Tree) and value.data == "literal":
        (token,) = value.children
        if isinstance(token, Token) and token.type in ("STRING", "REGEXP"):
            cls = "literal" if token.type == "STRING" else "regexp"
            return _box(railroad.Terminal(str(token), cls=cls))
    if isinstance(value, Tree) and value.data == "range":
        first, last = value.children
        return _box(railroad.Terminal(f"{first}..{last}", cls="literal"))
    raise PluginError(f"{source}: the grammar diagrams do not know the construct {value!r}")


def to_railroad(tree: Tree[Any], source: str = "envelope.lark") -> railroad.DiagramItem:
    """The railroad item of one expression tree of Lark's meta grammar.

    Each construct of the meta grammar has its own branch; anything else raises
    :class:`PluginError` rather than be drawn as something it is not.
    """
    kind, children = tree.data, tree.children
    if kind == "expansions":
        alternatives = [to_railroad(child, source) for child in children]
        return alternatives[0] if len(alternatives) == 1 else railroad.Choice(0, *alternatives)
    if kind == "alias":
        expansion, alias = children
        item = to_railroad(expansion, source)
        return item if alias is None else railroad.Sequence(item, railroad.Comment(f"→ {alias}"))
    if kind == "expansion":
        items = [to_railroad(child, source) for child in children]
        if not items:
            return railroad.Skip()
        return items[0] if len(items) == 1 else railroad.Sequence(*items)
    if kind == "expr" and len(children) == 2 and isinstance(children[1], Token):
        item, op = to_railroad(children[0], source), str(children[1])
        if op == "?":
            return railroad.Optional(item)
        if op == "*":
            return railroad.ZeroOrMore(item)
        if op == "+":
            return railroad.OneOrMore(item)
    if kind == "maybe" and len(children) == 1:
        return railroad.Optional(to_railroad(children[0], source))
    if kind == "value" and len(children) == 1:
        return _symbol(children[0], source)
    raise PluginError(f"{source}: the grammar diagrams do not know the construct {tree!r}")


# Widest a diagram is drawn before its top sequence is stacked onto several lines: about the
# content column of the theme at a desktop width.
_MAX_WIDTH = 560


def _stacked(item: railroad.DiagramItem) -> railroad.DiagramItem:
    """A long top-level sequence broken into lines, so the diagram fits the column."""
    if not isinstance(item, railroad.Sequence) or item.width <= _MAX_WIDTH:
        return item
    # Lines of about equal width: a last line holding one box reads as an afterthought.
    width = item.width / -(-item.width // _MAX_WIDTH)
    lines: list[list[railroad.DiagramItem]] = [[]]
    for part in item.items:
        if lines[-1] and railroad.Sequence(*lines[-1], part).width > width + 40:
            lines.append([])
        lines[-1].append(part)
    return railroad.Stack(*(railroad.Sequence(*line) for line in lines))


def railroad_svg(definition: Definition) -> str:
    """The inline SVG of one definition's diagram, on one line."""
    diagram = railroad.Diagram(_stacked(to_railroad(definition.tree)))
    kind = "terminal" if definition.terminal else "rule"
    diagram.attrs["role"] = "img"
    diagram.attrs["aria-label"] = f"railroad diagram of {kind} {definition.name}"
    parts: list[str] = []
    diagram.writeSvg(parts.append)
    return "".join(parts).replace("\n", "")


def railroad_css() -> str:
    """The railroad library's own style, each selector kept inside the diagrams' wrapper,
    followed by the site's colours and code font."""
    rules = []
    for selectors, body in re.findall(r"([^{}]+)\{([^{}]*)\}", railroad.DEFAULT_STYLE):
        scoped = ", ".join(f".tw-railroad {s.strip()}" for s in selectors.split(","))
        rules.append(f"{scoped} {{{' '.join(body.split())}}}")
    rules += [
        ".tw-railroad svg.railroad-diagram {background-color: var(--md-code-bg-color);}",
        ".tw-railroad svg.railroad-diagram text {font-family: var(--md-code-font-family); "
        "fill: var(--md-code-fg-color);}",
        ".tw-railroad svg.railroad-diagram path {stroke: var(--md-default-fg-color--light);}",
        ".tw-railroad svg.railroad-diagram rect {stroke: var(--md-default-fg-color--light);}",
        ".tw-railroad svg.railroad-diagram g.non-terminal rect {fill: var(--md-accent-bg-color);}",
        ".tw-railroad svg.railroad-diagram g.terminal rect {fill: hsl(120, 60%, 93%);}",
        ".tw-railroad svg.railroad-diagram g.regexp rect {fill: hsl(45, 90%, 92%);}",
        ".tw-railroad svg.railroad-diagram a text {fill: var(--md-typeset-a-color); "
        "text-decoration: underline;}",
    ]
    return "\n".join(rules)


def _markdown_comment(comment: str) -> str:
    return html.escape(" ".join(comment.split()), quote=False)


def grammar_page() -> str:
    """The Markdown of the grammar page: every rule and terminal drawn, then the sources."""
    text = GRAMMAR.read_text(encoding="utf-8")
    definitions = grammar_definitions(text)
    lines = ["# Envelope grammar", "",
             "The normative grammar of one envelope, `grammar/envelope.lark`, shipped inside the "
             "wheel. Parse it with Lark's LALR parser and contextual lexer. "
             "`grammar/envelope.abnf` writes the same language in ABNF (RFC 5234) for readers "
             "in other languages.", "",
             "Each rule and terminal below is drawn from the grammar file when this site is "
             "built. Read a diagram from left to right; a square box is a rule (follow it to its "
             "own diagram), a round box a terminal, a green one a literal string and a yellow "
             "one a regular expression.", "",
             "Download: [envelope.lark](grammar/envelope.lark) (Lark) · "
             "[envelope.abnf](grammar/envelope.abnf) (ABNF)", "",
             f"<style>{railroad_css()}</style>", ""]
    for terminal, heading in ((False, "Rules"), (True, "Terminals")):
        lines += [f"## {heading} {{#{heading.lower()}-diagrams}}", ""]
        for definition in (d for d in definitions if d.terminal is terminal):
            lines += [f"### `{definition.name}` {{#{_anchor(definition.name)}}}", ""]
            if definition.comment:
                lines += [_markdown_comment(definition.comment), ""]
            lines += [f'<div class="tw-figure tw-railroad">{railroad_svg(definition)}</div>', ""]
    abnf = ABNF.read_text(encoding="utf-8")
    lines += ["## Grammar source {#grammar-source}", "",
              f"```text\n{text}```", "",
              '??? note "The same language in ABNF: `grammar/envelope.abnf`"', "",
              "    ```abnf", *(f"    {line}" if line else "" for line in abnf.splitlines()),
              "    ```", ""]
    return "\n".join(lines)


# --------------------------------------------------------------------------- command line


def _cell(text: str) -> str:
    """Text for a Markdown table cell: one line, no markup of its own."""
    text = html.escape(" ".join(text.split()), quote=False)
    return re.sub(r"([\\`*_\[\]|])", r"\\\1", text)


def _option_row(param: click.Parameter, ctx: click.Context) -> str:
    names = ", ".join(f"`{name}`" for name in [*param.opts, *param.secondary_opts])
    if isinstance(param, click.Option) and param.is_flag:
        kind = "flag"
    else:
        kind = _cell(param.type.get_metavar(param, ctx) or param.type.name)
        if param.nargs != 1 or getattr(param, "multiple", False):
            kind += " (repeatable)" if getattr(param, "multiple", False) else \
                f" × {param.nargs}"
    help_ = _cell(getattr(param, "help", None) or "")
    default = param.get_default(ctx, call=False) if isinstance(param, click.Option) else None
    shown = "" if default in (None, False, (), "") or callable(default) or \
        type(default).__name__ == "Sentinel" else f"`{default}`"
    if isinstance(param, click.Option) and param.envvar:
        help_ += f" Environment: `{param.envvar}`."
    return f"| {names} | {kind} | {help_} | {shown} |"


def _command_section(command: click.Command, path: list[str], ctx: click.Context) -> list[str]:
    """The reference of one command, then of each of its subcommands."""
    name = " ".join(path)
    anchor = "-".join(path)
    # The command's own context settings: click caches the help option on the command the
    # first time a context asks for it, so a context built without them would change what
    # `-h` means for the rest of the process.
    ctx = click.Context(command, info_name=path[-1], parent=ctx, **command.context_settings)
    usage = " ".join([name, *command.collect_usage_pieces(ctx)])
    lines = [f"{'#' * min(len(path), 4)} `{name}` {{#{anchor}}}", "",
             "```text", usage, "```", ""]
    for paragraph in (command.help or "").split("\n\n"):
        text = " ".join(paragraph.split())
        if text and text != "\b":
            lines += [_cell(text.removeprefix("\b ")).replace("\\|", "|"), ""]
    arguments = [p for p in command.params if isinstance(p, click.Argument)]
    if arguments:
        lines += ["Arguments: " + ", ".join(
            f"`{p.human_readable_name}`" + (" (optional)" if not p.required else "") +
            (" (repeatable)" if p.nargs == -1 else "") for p in arguments) + ".", ""]
    options = [p for p in command.params if isinstance(p, click.Option) and not p.hidden]
    if options:
        lines += ["| option | value | description | default |", "|---|---|---|---|",
                  *(_option_row(p, ctx) for p in options),
                  "| `-h`, `--help` | flag | Show the help and exit. | |", ""]
    if isinstance(command, click.Group):
        for sub in command.list_commands(ctx):
            child = command.get_command(ctx, sub)
            if child is None or child.hidden:
                continue
            lines += _command_section(child, [*path, sub], ctx)
    return lines


def cli_page() -> str:
    """The Markdown of the command line reference, read from the click commands that parse
    the command line, so an option cannot be documented other than it behaves."""
    from teamwire.cli import _COMMANDS, main

    root = click.Context(main, info_name="teamwire", **main.context_settings)
    lines = ["# Command line reference", "",
             "Every `teamwire` command with its arguments and options, read from the commands "
             "themselves when this site is built; `teamwire COMMAND --help` prints the same. "
             "Each command's description ends with its exit codes.", "",
             "| command | what it does |", "|---|---|"]
    lines += [f"| [`teamwire {name}`](#teamwire-{name}) | {help_} |"
              for name, (_, _, help_) in sorted(_COMMANDS.items())]
    lines.append("")
    for name in sorted(_COMMANDS):
        command = main.get_command(root, name)
        if command is None:
            raise PluginError(f"teamwire {name} is listed but cannot be loaded")
        lines += _command_section(command, ["teamwire", name], root)
    return "\n".join(lines)


# --------------------------------------------------------------------------- hook


def on_files(files: Files, config: Any) -> Files:
    """Add the reference pages and the raw files they offer for download."""
    files.append(File.generated(config, "grammar.md", content=grammar_page()))
    files.append(File.generated(config, "cli.md", content=cli_page()))
    for path in (GRAMMAR, ABNF):
        files.append(File.generated(config, f"grammar/{path.name}", abs_src_path=str(path)))
    return files
