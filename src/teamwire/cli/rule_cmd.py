"""``teamwire rule``: explain one lint rule, or list them all."""

from __future__ import annotations

import json
import sys

import click

from teamwire.validator.docs import rule_text
from teamwire.validator.reporters.json_format import FORMAT_VERSION
from teamwire.validator.rules import REGISTRY


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("code", required=False, metavar="[CODE|NAME]")
@click.option("--all", "show_all", is_flag=True, help="List every rule.")
@click.option("-f", "--format", "output_format", type=click.Choice(["text", "json"]),
              default="text", show_default=True, help="Output format.")
def rule(code: str | None, show_all: bool, output_format: str) -> None:
    """Explain the lint rule CODE (e.g. TW101 or envelope-syntax), or list all with --all."""
    if show_all == (code is not None):
        raise click.UsageError("give a rule code or name, or --all")
    if code is not None:
        found = REGISTRY.get(code)
        if found is None:
            if code.upper() == "ALL":
                hint = "'teamwire rule --all' lists every rule"
            else:
                prefixed = [r.code for r in REGISTRY.matching(code)]
                hint = (f"rules whose codes start so: {', '.join(prefixed)}" if prefixed
                        else REGISTRY.suggest(code) or "'teamwire rule --all' lists them")
            click.echo(f"error: no rule {code!r}; {hint}", err=True)
            sys.exit(2)
        selected = [found]
    else:
        selected = list(REGISTRY)
    if output_format == "json":
        data = [{"code": r.code, "name": r.name, "severity": r.severity.value,
                 "summary": r.summary, "requirements": list(r.requirements), "scope": r.scope,
                 "profiles": list(r.profiles), "default": r.default,
                 "rationale": r.rationale, "bad": r.bad,
                 "good": r.good} for r in selected]
        payload: object = data[0] if code is not None else {"version": FORMAT_VERSION,
                                                            "rules": data}
        click.echo(json.dumps(payload, ensure_ascii=False, indent=2))
    elif code is not None:
        click.echo(rule_text(selected[0]), nl=False)
    else:
        width = max(len(r.name) for r in selected)
        for r in selected:
            off = "" if r.default else " (off by default)"
            click.echo(f"{r.code}  {r.name:<{width}}  {r.severity.value:<7}  {r.summary}{off}")
