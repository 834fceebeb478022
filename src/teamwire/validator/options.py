"""Everything a lint run is configured with, after config files and flags are merged."""

from __future__ import annotations

import contextlib
import fnmatch
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import PurePath

from teamwire.envelope import Profile
from teamwire.validator.emitter import Policy
from teamwire.validator.findings import Severity
from teamwire.validator.rules import REGISTRY

DEFAULT_ROUND_LIMIT = 8
"""Accepted asks from one sub-agent to another beyond which TW510 warns (the spec's default)."""

DEFAULT_MAX_RECORD_BYTES = 64 * 1024 * 1024
"""Longest JSONL line read; longer lines are skipped with TW008 so memory stays bounded."""


def default_severities() -> dict[str, Severity]:
    """Each rule's severity as the registry defines it."""
    return {rule.code: rule.severity for rule in REGISTRY}


@dataclass(frozen=True)
class LintOptions:
    """How to lint: profile, rules and their severities, identity of lone conversations."""

    profile: Profile = Profile.STRICT
    agent: str | None = None
    """Display name of the agent whose lone conversation is linted; None infers it."""
    enabled: frozenset[str] = field(default_factory=lambda: frozenset(REGISTRY.default_codes()))
    severity: Mapping[str, Severity] = field(default_factory=default_severities)
    per_file_ignores: tuple[tuple[str, frozenset[str]], ...] = ()
    """(glob, codes) pairs: codes switched off in files whose path matches the glob."""
    root: str | None = None
    """Directory that per-file-ignores globs are relative to (the config file's)."""
    round_limit: int = DEFAULT_ROUND_LIMIT
    max_record_bytes: int = DEFAULT_MAX_RECORD_BYTES

    def __post_init__(self) -> None:
        # Accept the profile's name ("astrion") as well as the enum member.
        object.__setattr__(self, "profile", Profile(self.profile))

    def policy_for(self, file: str) -> Policy:
        """The rules on for ``file`` once per-file ignores are applied."""
        enabled = self.enabled
        if self.per_file_ignores:
            candidates = match_forms(file, self.root)
            for pattern, codes in self.per_file_ignores:
                if any(fnmatch.fnmatchcase(c, pattern) for c in candidates):
                    enabled = enabled - codes
        return Policy(enabled=enabled, severity=self.severity)


def match_forms(file: str, root: str | None) -> list[str]:
    """The path as given, relative to ``root`` when inside it, and its base name."""
    path = PurePath(file)
    forms = [path.as_posix(), path.name]
    if root is not None:
        with contextlib.suppress(ValueError):
            forms.append(PurePath(os.path.abspath(file)).relative_to(root).as_posix())
    return forms

