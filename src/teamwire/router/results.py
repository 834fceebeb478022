"""Run results in their text form (``<result agent=... state=...>``)."""

from __future__ import annotations

RUN_STATES = ("completed", "running", "error", "timeout", "terminated")


def render_result(agent: str, state: str, text: str, summary: str | None = None) -> str:
    """The canonical text of a run result: ``output`` body for completed/running, else ``error``."""
    if state not in RUN_STATES:
        raise ValueError(f"unknown run state {state!r}")
    body = "output" if state in ("completed", "running") else "error"
    lines = [f'<result agent="{agent}" state="{state}">']
    if summary is not None:
        lines.append(f"<summary>{' '.join(summary.split())}</summary>")
    lines += [f"<{body}>", text, f"</{body}>", "</result>"]
    return "\n".join(lines)
