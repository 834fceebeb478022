"""What ``teamwire lint --show-settings`` and ``--show-files`` print: the resolved
configuration and the inputs a run would read, without linting anything."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from teamwire.validator.options import LintOptions
from teamwire.validator.rules import REGISTRY
from teamwire.validator.runner import STDIN, Input


def _codes(codes: Sequence[str]) -> str:
    return ", ".join(codes) if codes else "none"


def settings_text(config: Path | None, options: LintOptions, exclude: Sequence[str],
                  gitignore: bool = True) -> str:
    """The settings a run would use, one per line, in the order a reader checks them."""
    every = REGISTRY.codes()
    off = [code for code in every if code not in options.enabled]
    regraded = [f"{rule.code}={options.severity[rule.code].value} (default "
                f"{rule.severity.value})" for rule in REGISTRY
                if options.severity[rule.code] is not rule.severity]
    rows = [
        ("config", str(config) if config is not None else "none (defaults)"),
        ("root", options.root or "."),
        ("profile", options.profile.value),
        ("agent", options.agent or "inferred"),
        ("rules", f"{len(every) - len(off)} of {len(every)} on"),
        ("off", _codes(off)),
        ("severity", _codes(regraded)),
    ]
    rows += [("per-file-ignores", f"{glob} -> {_codes(sorted(codes))}")
             for glob, codes in options.per_file_ignores] or [("per-file-ignores", "none")]
    rows += [
        ("exclude", _codes(list(exclude))),
        ("respect-gitignore", "true" if gitignore else "false"),
        ("ask-round-limit", str(options.round_limit)),
        ("max-record-bytes", str(options.max_record_bytes)),
    ]
    width = max(len(key) for key, _ in rows)
    return "\n".join(f"{key:<{width}}  {value}" for key, value in rows)


def files_text(inputs: Sequence[Input], stdin_name: str) -> str:
    """The files a run would lint, one per line, in the order it would lint them."""
    return "\n".join(stdin_name if item == STDIN else item
                     for item in inputs if isinstance(item, str))
