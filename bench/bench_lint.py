"""Lint throughput against its floor and a schema-only validator, and streaming memory.

Run: python bench/bench_lint.py [--size MB] [--payload-scale F] [--jsonl-size MB] [--rounds N]
[--keep DIR] [--no-sweep]

Generates a corpus of realistic session bundles (system prompts, tasks, file reads and
writes with code, command output, reports in English and Chinese, asks, answers, messages)
and prints, from one run on one core:

- the floor: a bare ``orjson.loads`` pass over the same bytes (each document dropped once
  decoded), in MB/s;
- ``lint_bytes`` over the same bytes (decode plus every rule on by default), in MB/s, its ratio to
  the floor (target >= 0.5), and where the time beyond the floor goes (the conversation
  passes, the session checks, the rest) with its cost per message;
- the prototype linter the throughput target was set by, rebuilt from its description
  (``prototype_lint.py``), over the same bytes: its ratio to the floor, and lint's to it;
- if ``check-jsonschema`` is installed, its wall time validating the same files against
  the bundle schema alone, beside the wall time of the ``teamwire lint`` command on them
  (lint must be faster);
- a density sweep: lint and the prototype against the floor again on fresh corpora with
  tool outputs and written files 2, 4, 8 and 16 times as large (fewer messages per
  megabyte), the density at which lint reaches 0.5 of the floor, and lint's ratio at the
  target's own reference point: the prototype ran at 0.85 of the floor on the corpus the
  target was set on, so lint, at a measured fraction of the prototype's speed, runs at
  that fraction of 0.85 there (``--no-sweep`` skips this);
- the start-up cost: the wall time of ``teamwire lint`` on one small bundle beside a bare
  ``python -c pass``;
- peak RSS while streaming two generated JSONL conversations, one four times the other's
  size (memory may grow with the number of messages, by the ids kept, not with their size).

``--payload-scale`` multiplies the size of tool outputs and written files (the bulk of a
transcript's bytes); every other size keeps its range, so a megabyte holds fewer messages.
The ratios depend on that density, and this shows by how much.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple

import orjson

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from conformance.sources.transcripts.builders import SessionBuilder, small_session  # noqa: E402
from prototype_lint import prototype_lint, validators  # noqa: E402

from teamwire.validator import lint_bytes  # noqa: E402
from teamwire.validator.conversation import ConversationLinter  # noqa: E402
from teamwire.validator.cross_conversation import SessionChecker  # noqa: E402

MB = 1024 * 1024


def _words(text: str) -> list[str]:
    return text.split()


_WORDS = _words(
    "the form validates the email field before it posts to the registration endpoint and shows "
    "an inline error when the password is shorter than eight characters while the palette "
    "keeps contrast above four point five for body text on every background tests cover the "
    "happy path the duplicate email case and the server timeout")
_ZH = _words("登录 表单 校验 邮箱 字段 密码 长度 配色 方案 主色调 蓝色 对比度 接口 注册 测试 用例 超时 "
             "重复 错误 提示 组件 样式 文件 目录 完成 进度 分析 需求 设计")
_IDENTS = _words("user email password form submit handler validate palette theme color api client "
                 "request response status token session config router store")


def prose(rng: random.Random, chars: int) -> str:
    out: list[str] = []
    size = 0
    while size < chars:
        if rng.random() < 0.3:
            sentence = "".join(rng.choice(_ZH) for _ in range(rng.randint(6, 14))) + "。"
        else:
            words = [rng.choice(_WORDS) for _ in range(rng.randint(8, 20))]
            sentence = " ".join(words).capitalize() + "."
        out.append(sentence)
        size += len(sentence) + 1
    return " ".join(out)


def code(rng: random.Random, chars: int) -> str:
    lines: list[str] = []
    size = 0
    while size < chars:
        kind = rng.random()
        a, b, c = (rng.choice(_IDENTS) for _ in range(3))
        if kind < 0.2:
            line = f"export function {a}_{b}({c}: string): boolean {{"
        elif kind < 0.4:
            line = f"  const {a} = await {b}.{c}(\"/api/{a}\", {{ method: \"POST\" }});"
        elif kind < 0.5:
            line = f"  // {''.join(rng.choice(_ZH) for _ in range(4))}: {a} {b}"
        elif kind < 0.6:
            line = "}"
        else:
            line = f"  if (!{a}.{b}) {{ throw new Error(\"{c} is required\"); }}"
        lines.append(line)
        size += len(line) + 1
    return "\n".join(lines)


def sized(rng: random.Random, low: int, high: int) -> int:
    # Log-uniform between low and high: as many 1-2 KB results as 8-16 KB ones.
    return int(low * (high / low) ** rng.random())


PAYLOAD_SCALE = 1.0
"""What ``--payload-scale`` multiplies tool outputs and written files by."""

REFERENCE_RATIO = 0.85
"""The prototype's throughput against the floor on the corpus the lint target was set on,
as the target states it."""


def payload(rng: random.Random, low: int, high: int) -> int:
    """The size of a tool output or a written file: ``sized``, times the payload scale."""
    return int(sized(rng, low, high) * PAYLOAD_SCALE)


def make_bundle(rng: random.Random, number: int) -> dict[str, Any]:
    """One session of a small coding team; sizes are log-uniform within the ranges below.

    Per step a sub-agent says something (40-1200 characters, forwarded to the leader as
    a progress report) and calls a tool: read_file (1-24 KB of code), write_file (0.5-10 KB
    in its arguments), run_command (0.3-8 KB of output), web_search (2-12 KB) or
    search_workspace (0.5-4 KB); now and then it asks the leader or a peer, the leader sends
    a message or asks back, or the sub-agent reports completion.
    """
    b = SessionBuilder(system_prompt="You are the Team Leader.\n" + prose(rng, sized(rng, 4000, 8000)))
    roles = [("ui-operator", "UI Operator"), ("full-stack-engineer", "Full-Stack Engineer"),
             ("qa-tester", "QA Tester"), ("tech-writer", "Tech Writer")]
    team = []
    for i, (role_id, role_name) in enumerate(rng.sample(roles, rng.randint(2, 4))):
        team.append(b.create(role_id, role_name, 1, prose(rng, sized(rng, 300, 2500)),
                             system_prompt=f"You are {role_name}.\n"
                             + prose(rng, sized(rng, 4000, 8000))))
        if i == 0 and rng.random() < 0.5:
            b.leader_work(prose(rng, 120), "read_file", {"path": "README.md"},
                          code(rng, payload(rng, 1000, 12000)))
    for _step in range(rng.randint(60, 160)):
        agent = rng.choice(team)
        roll = rng.random()
        text = prose(rng, sized(rng, 40, 1200))
        if roll < 0.35:
            b.work(agent, text if rng.random() < 0.7 else "", "read_file",
                   {"path": f"src/{rng.choice(_IDENTS)}.ts"}, code(rng, payload(rng, 1000, 24000)))
        elif roll < 0.52:
            b.work(agent, text, "write_file", {"path": f"src/{rng.choice(_IDENTS)}.ts",
                                               "content": code(rng, payload(rng, 500, 10000))},
                   '{"ok": true}')
        elif roll < 0.66:
            b.work(agent, text, "run_command", {"command": "npm test"},
                   prose(rng, payload(rng, 300, 8000)))
        elif roll < 0.71:
            b.work(agent, text, "web_search", {"query": prose(rng, 40)},
                   prose(rng, payload(rng, 2000, 12000)))
        elif roll < 0.76:
            b.work(agent, text, "search_workspace", {"query": rng.choice(_IDENTS)},
                   code(rng, payload(rng, 500, 4000)))
        elif roll < 0.81:
            ask = b.ask_master(agent, prose(rng, sized(rng, 60, 600)), text)
            b.answer_master(ask, prose(rng, sized(rng, 60, 1200)))
        elif roll < 0.85 and len(team) > 1:
            other = rng.choice([t for t in team if t is not agent])
            ask = b.ask_other(agent, other, prose(rng, sized(rng, 60, 600)),
                              f"Asking {other.name}: " + text)
            b.answer_other(ask, prose(rng, sized(rng, 60, 800)))
        elif roll < 0.9:
            b.message(agent, prose(rng, sized(rng, 60, 800)))
        elif roll < 0.92:
            b.ask_sub(agent, prose(rng, 120), prose(rng, sized(rng, 60, 600)))
        else:
            b.say(agent, text)
    for agent in team:
        b.say(agent, prose(rng, sized(rng, 200, 2000)))
    return b.bundle(session=f"bench-{number}")


def make_corpus(directory: Path, size_mb: float, seed: int = 7,
                scale: float | None = None) -> list[Path]:
    """Bundles of ``make_bundle`` written to ``directory`` until they hold ``size_mb``; with
    ``scale``, at that payload scale (and it stays the scale afterwards)."""
    global PAYLOAD_SCALE
    if scale is not None:
        PAYLOAD_SCALE = scale
    for old in directory.glob("bundle_*.json"):
        old.unlink()
    rng = random.Random(seed)
    paths: list[Path] = []
    total = 0
    while total < size_mb * MB:
        data = orjson.dumps(make_bundle(rng, len(paths)))
        path = directory / f"bundle_{len(paths):03d}.json"
        path.write_bytes(data)
        paths.append(path)
        total += len(data)
    return paths


def interleaved(rounds: int, *funcs: Any) -> list[float]:
    """Best CPU time of each function over ``rounds`` rounds that alternate between them,
    so that load on a shared machine hits every function alike."""
    best = [float("inf")] * len(funcs)
    for _ in range(rounds):
        for i, func in enumerate(funcs):
            start = time.process_time()
            func()
            best[i] = min(best[i], time.process_time() - start)
    return best


class PhaseTimer:
    """CPU time spent in the conversation passes and the session checks while installed
    (two clock reads per conversation and per bundle: well under 1% of a lint pass)."""

    def __init__(self) -> None:
        self.spent = {"conversations": 0.0, "session": 0.0}
        self._methods = (ConversationLinter.feed_all, SessionChecker.run)

    def _timed(self, key: str, method: Any) -> Any:
        spent = self.spent

        def wrapper(*args: Any) -> Any:
            start = time.process_time()
            try:
                return method(*args)
            finally:
                spent[key] += time.process_time() - start
        return wrapper

    def __enter__(self) -> PhaseTimer:
        feed_all, run = self._methods
        ConversationLinter.feed_all = self._timed("conversations", feed_all)  # type: ignore[method-assign]
        SessionChecker.run = self._timed("session", run)  # type: ignore[method-assign]
        return self

    def __exit__(self, *_: object) -> None:
        ConversationLinter.feed_all, SessionChecker.run = self._methods  # type: ignore[method-assign]


class Timing(NamedTuple):
    """Best CPU seconds of the floor, lint and the prototype over one corpus, and the split
    of lint's time in the round that was kept."""

    floor: float
    lint: float
    prototype: float
    split: dict[str, float]
    findings: int


def time_corpus(paths: list[Path], blobs: list[bytes], rounds: int,
                tools: dict[str, Any]) -> Timing:
    """Time the floor, lint and the prototype over the same bytes, rounds interleaved."""
    findings = 0
    best_split: dict[str, float] = {}
    best_lint = float("inf")

    def run_lint() -> None:
        nonlocal findings, best_lint, best_split
        with PhaseTimer() as timer:
            start = time.process_time()
            findings = sum(len(lint_bytes(b, p.name).findings)
                           for p, b in zip(paths, blobs, strict=True))
            took = time.process_time() - start
        if took < best_lint:  # the split of the round whose time is reported
            best_lint, best_split = took, dict(timer.spent)

    floor, linted, prototyped = interleaved(rounds, floor_pass(blobs), run_lint,
                                            prototype_pass(blobs, tools))
    return Timing(floor, linted, prototyped, best_split, findings)


def floor_pass(blobs: list[bytes]) -> Callable[[], None]:
    """A bare decode of every document, as timed for the floor."""
    def run() -> None:
        # Each document is dropped once decoded, as lint drops each bundle once linted:
        # keeping them all alive would cost the floor fresh memory that lint never needs.
        for blob in blobs:
            orjson.loads(blob)
    return run


def prototype_pass(blobs: list[bytes], tools: dict[str, Any]) -> Callable[[], None]:
    """The prototype linter over every document."""
    def run() -> None:
        for blob in blobs:
            prototype_lint(blob, tools)
    return run


class SweepPoint(NamedTuple):
    """Lint and the prototype against the floor on one corpus of the density sweep."""

    scale: float
    kib_per_message: float
    lint: float
    prototype: float


SWEEP_SCALES = (2.0, 4.0, 8.0, 16.0)
"""Payload scales of the density sweep, beyond the default corpus (scale 1)."""


def sweep(directory: Path, size_mb: float, rounds: int, tools: dict[str, Any],
          scales: tuple[float, ...] = SWEEP_SCALES) -> list[SweepPoint]:
    """Lint and the prototype against the floor on a fresh corpus at each payload scale."""
    points = []
    for scale in scales:
        paths = make_corpus(directory, size_mb, scale=scale)
        blobs, total, messages, _ = describe(paths)
        timing = time_corpus(paths, blobs, rounds, tools)
        points.append(SweepPoint(scale, total * MB / messages / 1024,
                                 timing.floor / timing.lint, timing.floor / timing.prototype))
    return points


def crossing(points: list[SweepPoint], column: str, level: float) -> float | None:
    """The density (KiB per message) at which ``column`` first reaches ``level``,
    interpolated on a logarithmic density scale; None if no point of the sweep reaches it."""
    below: SweepPoint | None = None
    for point in points:
        value = getattr(point, column)
        if value >= level:
            if below is None:
                return point.kib_per_message
            low, high = math.log(below.kib_per_message), math.log(point.kib_per_message)
            start = getattr(below, column)
            share = (level - start) / (value - start)
            return math.exp(low + share * (high - low))
        below = point
    return None


def report_sweep(points: list[SweepPoint]) -> None:
    """Print the sweep, where lint reaches its target, and lint at the target's reference."""
    print("density sweep (tool outputs and written files scaled; a fresh corpus per row):")
    print("  scale  KiB/message  lint/floor  prototype/floor  lint/prototype")
    for p in points:
        print(f"  {p.scale:5.0f}  {p.kib_per_message:11.1f}  {p.lint:10.2f}  {p.prototype:15.2f}"
              f"  {p.lint / p.prototype:14.2f}")
    relative = sorted(p.lint / p.prototype for p in points)
    median = relative[len(relative) // 2] if len(relative) % 2 else \
        (relative[len(relative) // 2 - 1] + relative[len(relative) // 2]) / 2
    reached = crossing(points, "lint", 0.5)
    where = f"at about {reached:.1f} KiB per message" if reached is not None \
        else "at no density of the sweep"
    print(f"  lint reaches 0.5 of the floor {where}")
    best = max(points, key=lambda p: p.prototype)
    print(f"  the prototype's best: {best.prototype:.2f} of the floor at "
          f"{best.kib_per_message:.1f} KiB per message (the target's reference: "
          f"{REFERENCE_RATIO} on the corpus it was set on)")
    print(f"  lint runs at {relative[0]:.2f}-{relative[-1]:.2f} of the prototype's speed "
          f"(median {median:.2f}); at the reference that is {REFERENCE_RATIO * median:.2f} "
          "of the floor (target >= 0.5)")


def report_timing(total: float, messages: int, timing: Timing, indent: str = "") -> None:
    """Print lint's, the floor's and the prototype's throughput and their ratios."""
    floor, linted, prototyped = timing.floor, timing.lint, timing.prototype
    split = timing.split
    print(f"{indent}orjson decode (floor): {total / floor:8.1f} MB/s")
    print(f"{indent}teamwire lint:         {total / linted:8.1f} MB/s  ({timing.findings} findings)")
    print(f"{indent}ratio lint/floor:      {floor / linted:8.2f}   (target >= 0.5)")
    rest = linted - floor - split["conversations"] - split["session"]
    print(f"{indent}  beyond the floor: conversation passes {split['conversations'] * 1e3:.1f} ms, "
          f"session checks {split['session'] * 1e3:.1f} ms, the rest {rest * 1e3:.1f} ms "
          f"({(linted - floor) / messages * 1e6:.2f} us per message)")
    print(f"{indent}prototype linter:      {total / prototyped:8.1f} MB/s  (ratio to the floor "
          f"{floor / prototyped:.2f}; lint runs at {prototyped / linted:.2f} of its speed)")


def describe(paths: list[Path]) -> tuple[list[bytes], float, int, str]:
    """The corpus's bytes, its size in MB, its message count and a line describing it."""
    blobs = [p.read_bytes() for p in paths]
    total = sum(len(b) for b in blobs) / MB
    messages = sum(len(a["messages"]) for b in blobs for a in orjson.loads(b)["agents"].values())
    line = (f"{len(paths)} bundles, {total:.1f} MB, {messages} messages, "
            f"{total * MB / messages / 1024:.1f} KiB per message")
    return blobs, total, messages, line


def best_wall(rounds: int, command: list[str]) -> float:
    """Best wall time of ``rounds`` runs of ``command`` (a process start is what is timed),
    after one run that leaves the byte code of what it imports cached, as an installed
    package has it (an environment that forbids writing byte code would time compiling)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    best = float("inf")
    for round_ in range(rounds + 1):
        start = time.perf_counter()
        subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                       check=False, env=env)
        if round_:
            best = min(best, time.perf_counter() - start)
    return best


def write_jsonl(path: Path, size_mb: float, seed: int = 11) -> int:
    """A long sub-agent conversation, streamed to disk; every message distinct."""
    rng = random.Random(seed)
    written = 0
    count = 0
    with path.open("wb") as out:
        def emit(message: dict[str, Any]) -> None:
            nonlocal written, count
            line = orjson.dumps(message) + b"\n"
            out.write(line)
            written += len(line)
            count += 1

        emit({"role": "system", "content": "You are UI Operator.\n" + prose(rng, 3000)})
        emit({"role": "user", "content": "来自 Team Leader 的任务发布\nid: task_001\n\n"
              "<Team Leader>\n<Task>\nDesign the palette.\n</Task>\n</Team Leader>"})
        step = 0
        while written < size_mb * MB:
            step += 1
            call_id = f"call_{step:08d}"
            emit({"role": "assistant", "content": prose(rng, sized(rng, 40, 400)),
                  "tool_calls": [{"id": call_id, "type": "function", "function": {
                      "name": "read_file", "arguments": json.dumps({"path": f"f{step}.ts"})}}]})
            emit({"role": "tool", "tool_call_id": call_id,
                  "content": code(rng, sized(rng, 300, 8000))})
            if step % 50 == 0:
                emit({"role": "user", "content":
                      f"来自 Team Leader 的消息\nid: msg_tl_{step // 50:03d}\n\n<Team Leader>\n"
                      f"<Message>\n{prose(rng, 200)}\n</Message>\n</Team Leader>"})
    return count


# VmHWM is the peak RSS of this process image; ru_maxrss would also count the memory of
# the benchmark process that forked it (Linux keeps it across exec).
_RSS_CHILD = """
import resource, sys
from teamwire.validator import lint_file, LintOptions
report = lint_file(sys.argv[1], LintOptions(agent="UI Operator_1"))
try:
    with open("/proc/self/status") as status:
        peak = next(int(line.split()[1]) for line in status if line.startswith("VmHWM:"))
except (OSError, StopIteration):
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(peak, report.messages, len(report.findings))
"""


def peak_rss(path: Path) -> tuple[float, int, int]:
    """Peak RSS (MB) of a fresh process that lints ``path``, its message and finding count."""
    done = subprocess.run([sys.executable, "-c", _RSS_CHILD, str(path)], capture_output=True,
                          text=True, check=True)
    peak, messages, findings = done.stdout.split()
    return int(peak) / 1024, int(messages), int(findings)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--size", type=float, default=50, help="corpus size in MB (default 50)")
    parser.add_argument("--payload-scale", type=float, default=1.0,
                        help="multiply tool outputs and written files by this (default 1)")
    parser.add_argument("--jsonl-size", type=float, default=256,
                        help="size of the larger JSONL for the memory check, MB (default 256)")
    parser.add_argument("--rounds", type=int, default=5, help="timed rounds, best kept")
    parser.add_argument("--keep", type=Path, help="write the corpus here and keep it")
    parser.add_argument("--no-sweep", dest="sweep", action="store_false",
                        help="skip the density sweep")
    args = parser.parse_args()

    workdir = Path(tempfile.mkdtemp(prefix="teamwire-bench-"))
    corpus_dir = args.keep or workdir / "corpus"
    corpus_dir.mkdir(parents=True, exist_ok=True)
    try:
        start = time.perf_counter()
        paths = make_corpus(corpus_dir, args.size, scale=args.payload_scale)
        blobs, total, messages, line = describe(paths)
        print(f"corpus: {line} (generated in {time.perf_counter() - start:.1f} s)")
        tools = validators()
        timing = time_corpus(paths, blobs, args.rounds, tools)
        report_timing(total, messages, timing)

        cli = shutil.which("teamwire", path=os.path.dirname(sys.executable)) or "teamwire"
        files = [str(p) for p in paths]
        start = time.perf_counter()
        subprocess.run([cli, "lint", "-q", "--no-progress", "--format", "json", "-o",
                        os.devnull, *files], check=False)
        lint_wall = time.perf_counter() - start
        checker = shutil.which("check-jsonschema", path=os.path.dirname(sys.executable)) \
            or shutil.which("check-jsonschema")
        if checker is None:
            print(f"teamwire lint command: {lint_wall:8.2f} s; check-jsonschema not installed "
                  "(pip install check-jsonschema to compare)")
        else:
            schema_dir = ROOT / "spec" / "schemas"
            start = time.perf_counter()
            done = subprocess.run([checker, "--schemafile", str(schema_dir / "bundle.schema.json"),
                                   "--base-uri", schema_dir.as_uri() + "/", *files],
                                  capture_output=True, text=True, check=False)
            schema_wall = time.perf_counter() - start
            verdict = "ok" if done.returncode == 0 else f"exit {done.returncode}"
            print(f"check-jsonschema:      {schema_wall:8.2f} s  ({total / schema_wall:.1f} MB/s, "
                  f"bundle schema only, {verdict})")
            print(f"teamwire lint command: {lint_wall:8.2f} s  ({total / lint_wall:.1f} MB/s, "
                  f"rules on by default); speed-up {schema_wall / lint_wall:.1f}x")

        if args.sweep:
            (workdir / "sweep").mkdir()
            first = SweepPoint(args.payload_scale, total * MB / messages / 1024,
                               timing.floor / timing.lint, timing.floor / timing.prototype)
            scales = tuple(args.payload_scale * s for s in SWEEP_SCALES)
            report_sweep([first, *sweep(workdir / "sweep", args.size, args.rounds, tools,
                                        scales)])
            shutil.rmtree(workdir / "sweep")

        small = workdir / "one.json"
        small.write_text(json.dumps(small_session()), encoding="utf-8")
        bare = best_wall(args.rounds * 2, [sys.executable, "-c", "pass"])
        started = best_wall(args.rounds * 2, [cli, "lint", "-q", str(small)])
        print(f"start-up:              {started * 1e3:8.0f} ms to lint one small bundle; "
              f"{bare * 1e3:.0f} ms for a bare python start ({started / bare:.1f}x)")

        small, large = workdir / "small.jsonl", workdir / "large.jsonl"
        write_jsonl(small, args.jsonl_size / 4)
        write_jsonl(large, args.jsonl_size)
        for path in (small, large):
            rss, count, found = peak_rss(path)
            print(f"streaming {path.stat().st_size / MB:7.1f} MB JSONL ({count} messages, "
                  f"{found} findings): peak RSS {rss:6.1f} MB")
            path.unlink()
    finally:
        if args.keep is None:
            shutil.rmtree(workdir, ignore_errors=True)
        else:
            shutil.rmtree(workdir / "small.jsonl", ignore_errors=True)


if __name__ == "__main__":
    main()
