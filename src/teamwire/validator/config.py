"""Configuration: ``[tool.teamwire]`` in pyproject.toml or a teamwire.toml, merged with flags.

pyproject.toml::

    [tool.teamwire]
    profile = "strict"

    [tool.teamwire.lint]
    select = ["ALL"]
    ignore = ["TW111"]
    severity = { TW509 = "error" }
    per-file-ignores = { "legacy/**" = ["TW113"] }

teamwire.toml holds the same tables without the ``tool.teamwire`` prefix
(``profile`` at the top, ``[lint]`` for the rest). Lint settings may also be written
directly in ``[tool.teamwire]`` (or at the top of teamwire.toml); where both give one,
the lint table wins. Selectors are rule codes,
code prefixes (``TW1``, ``TW41``), rule names or ``ALL``; where selectors
disagree, the more specific one wins.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from teamwire.envelope import Profile
from teamwire.near_names import closest
from teamwire.validator.findings import Severity
from teamwire.validator.options import DEFAULT_MAX_RECORD_BYTES, DEFAULT_ROUND_LIMIT, LintOptions
from teamwire.validator.rules import REGISTRY

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python 3.10 only
    import tomli as tomllib

CONFIG_NAMES = ("teamwire.toml", "pyproject.toml")
_LINT_KEYS = frozenset({"select", "extend-select", "ignore", "severity", "per-file-ignores",
                        "exclude", "respect-gitignore", "ask-round-limit", "max-record-bytes",
                        "profile"})


class ConfigError(ValueError):
    """A configuration file or flag that cannot be used (exit code 2)."""


@dataclass
class LintConfig:
    """The lint settings of one configuration file (or none)."""

    path: Path | None = None
    profile: str | None = None
    select: list[str] | None = None
    extend_select: list[str] = field(default_factory=list)
    ignore: list[str] = field(default_factory=list)
    severity: dict[str, str] = field(default_factory=dict)
    per_file_ignores: dict[str, list[str]] = field(default_factory=dict)
    exclude: list[str] = field(default_factory=list)
    respect_gitignore: bool = True
    """Whether directory searches pass over what git ignores."""
    round_limit: int = DEFAULT_ROUND_LIMIT
    max_record_bytes: int = DEFAULT_MAX_RECORD_BYTES
    warnings: list[str] = field(default_factory=list)
    """What in the file looks wrong but does not stop a run (a misspelt setting, say)."""


def find_config(start: Path) -> Path | None:
    """The nearest teamwire.toml, or pyproject.toml with a [tool.teamwire] table, upwards."""
    directory = start.resolve()
    for folder in (directory, *directory.parents):
        candidate = folder / "teamwire.toml"
        if candidate.is_file():
            return candidate
        candidate = folder / "pyproject.toml"
        if candidate.is_file() and _has_teamwire_table(candidate):
            return candidate
    return None


def _has_teamwire_table(path: Path) -> bool:
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return False
    tool = data.get("tool")
    return isinstance(tool, dict) and isinstance(tool.get("teamwire"), dict)


def load_config(path: Path) -> LintConfig:
    """Read the lint settings of ``path``; ConfigError if unreadable or malformed."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read: {exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: {exc}") from None
    if path.name == "pyproject.toml":
        tool = data.get("tool", {})
        top = tool.get("teamwire", {}) if isinstance(tool, dict) else {}
        where = "[tool.teamwire]"
    else:
        top, where = data, "teamwire.toml"
    if not isinstance(top, dict):
        raise ConfigError(f"{path}: {where} must be a table")
    table = top.get("lint", {})
    if not isinstance(table, dict):
        raise ConfigError(f"{path}: {where}.lint must be a table")
    unknown = sorted(set(table) - _LINT_KEYS)
    if unknown:
        raise ConfigError(f"{path}: unknown lint setting(s): "
                          f"{', '.join(_with_guess(key) for key in unknown)}; known: "
                          f"{', '.join(sorted(_LINT_KEYS))}")
    # Lint settings may also sit directly in [tool.teamwire]; the lint table wins.
    lint = {key: value for key, value in top.items() if key in _LINT_KEYS}
    lint.update(table)
    config = LintConfig(path=path)
    # Tables beside [lint] may hold other teamwire settings; a plain value there that is no
    # lint setting is most likely a misspelt one, and so is a table named like one.
    config.warnings = [f"{path}: {where} has {_with_guess(key)}, which is not a lint setting; "
                       "it is ignored"
                       for key, value in top.items()
                       if key not in _LINT_KEYS and key != "lint"
                       and (not isinstance(value, dict) or _guess(key) is not None)]
    profile = lint.get("profile", top.get("profile"))
    if profile is not None:
        config.profile = _string(path, "profile", profile)
    if "select" in lint:
        config.select = _strings(path, "select", lint["select"])
    config.extend_select = _strings(path, "extend-select", lint.get("extend-select", []))
    config.ignore = _strings(path, "ignore", lint.get("ignore", []))
    config.exclude = _strings(path, "exclude", lint.get("exclude", []))
    respect = lint.get("respect-gitignore", True)
    if not isinstance(respect, bool):
        raise ConfigError(f"{path}: respect-gitignore must be true or false, not {respect!r}")
    config.respect_gitignore = respect
    severity = lint.get("severity", {})
    if not isinstance(severity, dict):
        raise ConfigError(f"{path}: severity must be a table of selector = level")
    config.severity = {str(k): _string(path, f"severity.{k}", v) for k, v in severity.items()}
    ignores = lint.get("per-file-ignores", {})
    if not isinstance(ignores, dict):
        raise ConfigError(f"{path}: per-file-ignores must be a table of glob = [selectors]")
    config.per_file_ignores = {str(k): _strings(path, f"per-file-ignores.{k}", v)
                               for k, v in ignores.items()}
    config.round_limit = _positive(path, "ask-round-limit",
                                   lint.get("ask-round-limit", DEFAULT_ROUND_LIMIT))
    config.max_record_bytes = _positive(path, "max-record-bytes",
                                        lint.get("max-record-bytes", DEFAULT_MAX_RECORD_BYTES))
    return config


def _guess(key: str) -> str | None:
    """The lint setting ``key`` was probably meant to be, if any."""
    return closest(key, _LINT_KEYS)


def _with_guess(key: str) -> str:
    """``key`` quoted, with the lint setting it was probably meant to be."""
    guess = _guess(key)
    return f"{key!r} (did you mean {guess!r}?)" if guess else repr(key)


def _string(path: Path, key: str, value: Any) -> str:
    if not isinstance(value, str):
        raise ConfigError(f"{path}: {key} must be a string")
    return value


def _strings(path: Path, key: str, value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{path}: {key} must be a list of strings")
    return list(value)


def _positive(path: Path, key: str, value: Any) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        raise ConfigError(f"{path}: {key} must be a positive integer")
    return value


# -- selection --------------------------------------------------------------------------------


def _specificity(selector: str) -> int:
    if selector.upper() == "ALL":
        return 0
    if REGISTRY.get(selector) is not None and not selector.upper().startswith("TW"):
        return 10  # a rule name names exactly one rule
    return len(selector)


def _check(selectors: Iterable[str], origin: str) -> list[str]:
    checked = []
    for selector in selectors:
        selector = selector.strip()
        if not selector:
            continue
        if not list(REGISTRY.matching(selector)):
            hint = REGISTRY.suggest(selector)
            raise ConfigError(f"{origin}: {selector!r} selects no rule"
                              + (f"; {hint}" if hint else ""))
        checked.append(selector)
    return checked


def select_rules(select: Sequence[str], ignore: Sequence[str]) -> set[str]:
    """The codes enabled by ``select`` minus ``ignore``; the more specific selector wins."""
    best: dict[str, tuple[int, bool]] = {}
    for enabled, selectors in ((True, select), (False, ignore)):
        for selector in selectors:
            weight = _specificity(selector)
            for rule in REGISTRY.matching(selector):
                current = best.get(rule.code)
                # Ties go to ignore, which is applied second.
                if current is None or weight >= current[0]:
                    best[rule.code] = (weight, enabled)
    return {code for code, (_, enabled) in best.items() if enabled}


def _severities(overrides: Mapping[str, tuple[str, str]]) -> dict[str, Severity]:
    """Severity by rule code, given selector → (level, where that setting comes from)."""
    result = {rule.code: rule.severity for rule in REGISTRY}
    weights: dict[str, int] = {}
    for selector, (level, origin) in overrides.items():
        try:
            severity = Severity(level.lower())
        except ValueError:
            raise ConfigError(f"{origin}: severity {level!r} of {selector!r} is not error, "
                              "warning or info") from None
        _check([selector], origin)
        weight = _specificity(selector)
        for rule in REGISTRY.matching(selector):
            if weight >= weights.get(rule.code, -1):
                weights[rule.code] = weight
                result[rule.code] = severity
    return result


@dataclass
class Overrides:
    """What the command line says, applied on top of the configuration file."""

    select: list[str] | None = None
    extend_select: list[str] = field(default_factory=list)
    ignore: list[str] = field(default_factory=list)
    severity: dict[str, str] = field(default_factory=dict)
    profile: str | None = None
    agent: str | None = None
    exclude: list[str] = field(default_factory=list)


def resolve(config: LintConfig, flags: Overrides) -> tuple[LintOptions, list[str]]:
    """LintOptions from a configuration and command-line flags, and the exclude globs."""
    origin = str(config.path) if config.path is not None else "configuration"
    select = _check(config.select if config.select is not None else ["ALL"], origin)
    extend = _check(config.extend_select, origin)
    enabled = select_rules(select + extend, _check(config.ignore, origin))
    if config.select is None:  # the default selection: rules off by default only if named
        enabled -= {r.code for r in REGISTRY if not r.default} - select_rules(extend, [])
    if flags.select is not None:
        enabled = select_rules(_check(flags.select, "--select")
                               + _check(flags.extend_select, "--extend-select"),
                               _check(flags.ignore, "--ignore"))
    else:
        enabled |= select_rules(_check(flags.extend_select, "--extend-select"), [])
        enabled -= select_rules(_check(flags.ignore, "--ignore"), [])
    levels = {selector: (level, origin) for selector, level in config.severity.items()}
    levels.update((selector, (level, "--severity")) for selector, level in flags.severity.items())
    severity = _severities(levels)
    name = flags.profile or config.profile or Profile.STRICT.value
    try:
        profile = Profile(name)
    except ValueError:
        where = "--profile" if flags.profile else origin
        guess = closest(name, [p.value for p in Profile])
        hint = f"did you mean {guess!r}? " if guess else ""
        raise ConfigError(f"{where}: unknown profile {name!r}; {hint}profiles are strict and "
                          "astrion") from None
    per_file: list[tuple[str, frozenset[str]]] = []
    for pattern, selectors in config.per_file_ignores.items():
        codes = select_rules(_check(selectors, f"{origin}: per-file-ignores"), [])
        per_file.append((pattern, frozenset(codes)))
    root = str(config.path.parent.resolve()) if config.path is not None else os.getcwd()
    options = LintOptions(profile=profile, agent=flags.agent, enabled=frozenset(enabled),
                          severity=severity, per_file_ignores=tuple(per_file), root=root,
                          round_limit=config.round_limit,
                          max_record_bytes=config.max_record_bytes)
    return options, config.exclude + flags.exclude
