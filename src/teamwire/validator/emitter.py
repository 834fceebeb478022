"""Where findings are made: the rule policy of a file and the emitter that applies it."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from teamwire.validator.findings import Finding, Severity
from teamwire.validator.registry import REGISTRY, Rule


class UnregisteredRule(LookupError):
    """A check emitted a rule the registry does not hold."""


@dataclass(frozen=True)
class Policy:
    """Which rules are on for one file and at what severity."""

    enabled: frozenset[str]
    severity: Mapping[str, Severity]


@dataclass
class Emitter:
    """Collects the findings of one file, dropping those of rules that are off."""

    file: str
    policy: Policy
    findings: list[Finding] = field(default_factory=list)
    agents: dict[str, int] = field(default_factory=dict)
    """Pointer of each agent entry of a bundle (``/agents/NAME``) → its position, so that
    reports can keep the bundle's order."""

    def on(self, rule: Rule) -> bool:
        """Whether ``rule`` is enabled (lets callers skip work for rules that are off)."""
        return rule.code in self.policy.enabled

    def emit(self, rule: Rule, message: str, *, agent: str | None = None,
             index: int | None = None, pointer: str | None = None, line: int | None = None,
             column: int | None = None, snippet: str | None = None,
             file_line: int | None = None, file_column: int | None = None) -> None:
        """Record a finding of ``rule`` if that rule is enabled.

        Raises ``UnregisteredRule`` for a rule the registry does not hold: a finding nobody
        can select, ignore or look up is a programming error, not something to drop.
        """
        code = rule.code
        if REGISTRY.get(code) is not rule:
            raise UnregisteredRule(f"rule {code} {rule.name} is not registered")
        policy = self.policy
        if code not in policy.enabled:
            return
        self.findings.append(Finding(
            rule=code, severity=policy.severity[code], message=message, file=self.file,
            agent=agent, index=index, pointer=pointer, line=line, column=column,
            snippet=snippet, file_line=file_line, file_column=file_column))
