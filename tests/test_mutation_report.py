"""The scoring of tools/mutation.py: verdicts from mutmut's exit codes, equivalents apart."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tools.mutation import (
    KILLED,
    PENDING,
    SURVIVED,
    UNTESTED,
    draw_sample,
    load_equivalents,
    module_of,
    score,
    verdicts,
    wilson,
)


def test_module_of_functions_and_methods() -> None:
    assert module_of("teamwire.router.core.x__fail__mutmut_3") == "teamwire.router.core"
    assert module_of("teamwire.envelope.ids.xǁIdAllocatorǁallocate__mutmut_12") == "teamwire.envelope.ids"


def test_verdicts_read_every_meta_file(tmp_path: Path) -> None:
    meta = tmp_path / "src" / "teamwire" / "envelope" / "ids.py.meta"
    meta.parent.mkdir(parents=True)
    meta.write_text(json.dumps({"exit_code_by_key": {
        "teamwire.envelope.ids.x_a__mutmut_1": 1, "teamwire.envelope.ids.x_a__mutmut_2": 0,
        "teamwire.envelope.ids.x_a__mutmut_3": 33, "teamwire.envelope.ids.x_a__mutmut_4": None,
        "teamwire.envelope.ids.x_a__mutmut_5": 36, "teamwire.envelope.ids.x_a__mutmut_6": 35}}))
    assert verdicts(tmp_path) == {
        "teamwire.envelope.ids.x_a__mutmut_1": KILLED,
        "teamwire.envelope.ids.x_a__mutmut_2": SURVIVED,
        "teamwire.envelope.ids.x_a__mutmut_3": UNTESTED,
        "teamwire.envelope.ids.x_a__mutmut_4": PENDING,
        "teamwire.envelope.ids.x_a__mutmut_5": KILLED,  # a timeout noticed the change
        "teamwire.envelope.ids.x_a__mutmut_6": SURVIVED,  # unexplained: never raises the score
    }


def test_score_leaves_equivalents_and_pending_out_of_the_denominator() -> None:
    found = {"m.x_f__mutmut_1": KILLED, "m.x_f__mutmut_2": KILLED, "m.x_f__mutmut_3": KILLED,
             "m.x_f__mutmut_4": SURVIVED, "m.x_f__mutmut_5": SURVIVED, "m.x_f__mutmut_6": PENDING,
             "m.x_f__mutmut_7": UNTESTED}
    module = score(found, {"m.x_f__mutmut_5": "same output"})["m"]
    assert module.counts["equivalent"] == 1
    assert module.scored == 5
    assert module.score == 60.0
    assert module.survivors == ["m.x_f__mutmut_4", "m.x_f__mutmut_7"]


def test_a_killed_mutant_listed_as_equivalent_counts_as_killed() -> None:
    module = score({"m.x_f__mutmut_1": KILLED}, {"m.x_f__mutmut_1": "thought equivalent"})["m"]
    assert module.counts == {KILLED: 1}


def test_every_listed_equivalent_gives_a_reason() -> None:
    for name, reason in load_equivalents().items():
        assert "__mutmut_" in name
        assert len(reason.split()) >= 4, f"{name}: say why no test can tell it apart"


def test_a_pending_mutant_listed_as_equivalent_stays_pending() -> None:
    module = score({"m.x_f__mutmut_1": PENDING, "m.x_f__mutmut_2": KILLED},
                   {"m.x_f__mutmut_1": "no test can tell"})["m"]
    assert module.counts == {PENDING: 1, KILLED: 1}
    assert module.score == 100.0


def test_wilson_interval_brackets_the_rate_and_narrows_with_the_sample() -> None:
    low, high = wilson(90, 100)
    assert low < 90.0 < high
    wide = high - low
    low, high = wilson(900, 1000)
    assert low < 90.0 < high
    assert high - low < wide / 2
    assert wilson(0, 0) == (0.0, 100.0)
    assert wilson(10, 10)[1] == pytest.approx(100.0)


def test_a_sample_is_reproducible_and_leaves_equivalents_out() -> None:
    names = [f"m.x_f__mutmut_{i}" for i in range(1, 101)]
    first = draw_sample(names, 10, seed=3, equivalents={"m.x_f__mutmut_5": "same"})
    assert first == draw_sample(names, 10, seed=3, equivalents={"m.x_f__mutmut_5": "same"})
    assert len(first) == 10 and len(set(first)) == 10
    assert first != draw_sample(names, 10, seed=4, equivalents={})
    everything = draw_sample(names, 500, seed=3, equivalents={"m.x_f__mutmut_5": "same"})
    assert len(everything) == 99 and "m.x_f__mutmut_5" not in everything
