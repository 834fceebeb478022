"""The lint benchmark's corpus and its prototype baseline stay what the benchmark claims."""

from __future__ import annotations

import random
import sys
from pathlib import Path

import orjson
import pytest

from teamwire.validator import lint_value

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

import bench_lint
from prototype_lint import prototype_lint, validators


@pytest.mark.parametrize("scale", [1.0, 3.0])
def test_generated_bundles_lint_clean(scale: float, monkeypatch: pytest.MonkeyPatch) -> None:
    # The benchmark times a clean pass: its corpus must have no finding at all, and the
    # prototype must count no problem in it either.
    monkeypatch.setattr(bench_lint, "PAYLOAD_SCALE", scale)
    rng = random.Random(3)
    for number in range(3):
        bundle = bench_lint.make_bundle(rng, number)
        assert lint_value(bundle).findings == []
        assert prototype_lint(orjson.dumps(bundle), validators()) == 0


def test_payload_scale_grows_outputs_only(monkeypatch: pytest.MonkeyPatch) -> None:
    def sizes(scale: float) -> tuple[float, float]:
        monkeypatch.setattr(bench_lint, "PAYLOAD_SCALE", scale)
        rng = random.Random(5)
        messages = [m for n in range(4) for a in bench_lint.make_bundle(rng, n)["agents"].values()
                    for m in a["messages"]]
        outputs = [len(m["content"]) for m in messages if m["role"] == "tool"]
        texts = [len(m["content"]) for m in messages if m["role"] == "user"]
        return sum(outputs) / len(outputs), sum(texts) / len(texts)

    (outputs, texts), (outputs_2, texts_2) = sizes(1.0), sizes(2.0)
    assert 1.6 < outputs_2 / outputs < 2.4
    assert 0.7 < texts_2 / texts < 1.4


def test_prototype_counts_what_it_checks() -> None:
    bundle = bench_lint.make_bundle(random.Random(3), 0)
    leader = bundle["agents"]["Team Leader"]["messages"]
    at = next(i for i, m in enumerate(leader) if m["role"] == "tool")
    del leader[at]  # a call without a result
    assert prototype_lint(orjson.dumps(bundle), validators()) == 1


def test_corpus_at_a_scale_replaces_the_last_one(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    # The density sweep writes corpus after corpus into one directory: each must hold only
    # its own bundles, at its own scale, so that the ratio measured is of that scale.
    monkeypatch.setattr(bench_lint, "PAYLOAD_SCALE", 1.0)
    small = bench_lint.make_corpus(tmp_path, 0.6, scale=1.0)
    _, _, small_messages, _ = bench_lint.describe(small)
    large = bench_lint.make_corpus(tmp_path, 0.6, scale=6.0)
    blobs, size, messages, line = bench_lint.describe(large)
    assert sorted(tmp_path.iterdir()) == sorted(large)
    assert bench_lint.PAYLOAD_SCALE == 6.0
    assert size >= 0.6 and messages < small_messages
    assert line.startswith(f"{len(large)} bundles, ")
    assert all(lint_value(orjson.loads(b)).findings == [] for b in blobs)


def test_sweep_crossing_interpolates_between_the_points_around_it() -> None:
    point = bench_lint.SweepPoint
    points = [point(1, 2.0, 0.4, 0.45), point(2, 4.0, 0.45, 0.5), point(4, 8.0, 0.55, 0.6),
              point(8, 16.0, 0.7, 0.8)]
    # halfway from 0.45 to 0.55 on a logarithmic density scale: between 4 and 8, at sqrt(32)
    assert bench_lint.crossing(points, "lint", 0.5) == pytest.approx(32 ** 0.5)
    assert bench_lint.crossing(points, "lint", 0.3) == 2.0  # the first point already
    assert bench_lint.crossing(points, "prototype", 0.85) is None  # never reached
    # noise may dip a later point below: the first crossing counts
    dipped = [*points[:3], point(8, 16.0, 0.5, 0.8)]
    assert bench_lint.crossing(dipped, "lint", 0.5) == pytest.approx(32 ** 0.5)
