"""Lint's cost in instructions, this tree against another revision, on one corpus.

Run: python bench/bench_lint_instructions.py [--against REV] [--size MB]

Wall-clock ratios on a shared machine drift by more than a refactor changes them; an
instruction count does not (valgrind's callgrind counts the instructions a process runs,
whatever else the machine does). For each tree, this one and ``REV`` (default ``HEAD~1``,
exported with ``git archive``), it runs three child processes under callgrind with the same
hash seed: one that only imports the linter and lints the corpus's first file once (the
warm-up: schemas, grammar and memo built), one that then decodes every file with orjson,
and one that then lints every file. The warm-up's count is subtracted from the other two,
which leaves decode and lint alone; it prints both and their ratio (lint/decode, lower is
cheaper), and lint's change between the trees. Needs valgrind (Debian package ``valgrind``).
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

CHILD = """
import pathlib, sys
import orjson
from teamwire.validator import lint_bytes
blobs = [p.read_bytes() for p in sorted(pathlib.Path(sys.argv[2]).iterdir())]
lint_bytes(blobs[0])
if sys.argv[1] == "decode":
    for blob in blobs:
        orjson.loads(blob)
elif sys.argv[1] == "lint":
    for blob in blobs:
        lint_bytes(blob)
"""


def instructions(src: Path, mode: str, corpus: Path, script: Path) -> int:
    """The instructions one child run takes, as callgrind counts them."""
    env = dict(os.environ, PYTHONPATH=str(src), PYTHONHASHSEED="0")
    done = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null",
                           sys.executable, str(script), mode, str(corpus)],
                          env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"{src}: the {mode} run failed:\n{done.stderr[-2000:]}")
    found = re.search(r"Collected : (\d+)", done.stderr)
    if found is None:
        raise SystemExit(f"callgrind printed no count:\n{done.stderr[-2000:]}")
    return int(found.group(1))


def export(revision: str, into: Path) -> Path:
    """The ``src`` tree of ``revision``, with the data files it reads (spec, grammar,
    vectors), written under ``into``."""
    into.mkdir(parents=True, exist_ok=True)
    archive = into / "tree.tar"
    with open(archive, "wb") as out:
        subprocess.run(["git", "archive", revision, "src", "spec", "grammar", "conformance"],
                       cwd=ROOT, stdout=out, check=True)
    with tarfile.open(archive) as tar:
        if hasattr(tarfile, "data_filter"):
            tar.extractall(into, filter="data")
        else:  # Python before 3.11.4: the archive is this repository's own tree
            tar.extractall(into)
    return into / "src"


def measure(src: Path, corpus: Path, script: Path) -> tuple[int, int]:
    """Decode and lint instructions of ``src`` on ``corpus``, the warm-up taken off."""
    base = instructions(src, "none", corpus, script)
    return (instructions(src, "decode", corpus, script) - base,
            instructions(src, "lint", corpus, script) - base)


def main() -> None:
    from bench_lint import make_corpus

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--against", default="HEAD~1", metavar="REV",
                        help="the revision to compare with (default HEAD~1)")
    parser.add_argument("--size", type=float, default=2.0, metavar="MB",
                        help="corpus size (default 2)")
    args = parser.parse_args()
    if shutil.which("valgrind") is None:
        raise SystemExit("needs valgrind (apt-get install valgrind)")
    work = Path(tempfile.mkdtemp(prefix="teamwire-instructions-"))
    try:
        corpus = work / "corpus"
        corpus.mkdir()
        paths = make_corpus(corpus, args.size)
        size = sum(p.stat().st_size for p in paths)
        script = work / "child.py"
        script.write_text(CHILD, encoding="utf-8")
        other = export(args.against, work / "against")
        print(f"corpus: {len(paths)} files, {size / 1e6:.2f} MB; counts in millions of "
              "instructions, warm-up taken off")
        rows = {}
        for name, src in ((args.against, other), ("this tree", ROOT / "src")):
            decode, lint = measure(src, corpus, script)
            rows[name] = lint
            print(f"{name:>12}: decode {decode / 1e6:8.1f}  lint {lint / 1e6:8.1f}  "
                  f"lint/decode {lint / decode:5.2f}")
        before, after = rows[args.against], rows["this tree"]
        print(f"lint: {100 * (after - before) / before:+.1f}% instructions against "
              f"{args.against}")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
