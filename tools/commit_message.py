"""Check a commit message's shape: a subject of at most 72 characters, then a blank line
before any body. Run by the ``commit-subject`` hook of ``.pre-commit-config.yaml`` (stage
commit-msg) with the message file git wrote; exit 1 with the reason when the shape is wrong."""

from __future__ import annotations

import sys
from pathlib import Path

LIMIT = 72


def problems(message: str) -> list[str]:
    """What is wrong with ``message`` (git's comment lines left out); empty when nothing is."""
    lines = [line for line in message.splitlines() if not line.startswith("#")]
    while lines and not lines[-1].strip():
        lines.pop()
    if not lines or not lines[0].strip():
        return ["the message has no subject on its first line"]
    found = []
    if len(lines[0]) > LIMIT:
        found.append(f"the subject is {len(lines[0])} characters long, more than {LIMIT}: "
                     "put the detail in the body, after a blank line")
    if len(lines) > 1 and lines[1].strip():
        found.append("the second line is not blank: a blank line separates subject and body")
    return found


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: commit_message.py MESSAGE_FILE", file=sys.stderr)
        return 2
    try:
        message = Path(argv[0]).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        print(f"commit_message.py: cannot read {argv[0]}: {error}", file=sys.stderr)
        return 2
    found = problems(message)
    for problem in found:
        print(f"commit message: {problem}", file=sys.stderr)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
