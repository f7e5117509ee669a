"""Steps-to-target on made-up curves: fixed levels, a reference's terminal and best values, pairing by seed."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from reprolab.results.runs import find_runs
from reprolab.results.steps_to_target import (
    first_step_reaching,
    pair_runs,
    steps_saved,
    steps_to_target,
    target_level,
)
from tests.core.results.run_folders import make_run

STEPS = [10, 20, 30, 40, 50]
REFERENCE = pd.Series([3.0, 2.4, 2.1, 1.9, 2.0], index=STEPS)  # best 1.9 at step 40, terminal 2.0 at 50
FAST = pd.Series([2.6, 2.0, 1.8, 1.7, 1.6], index=STEPS)
SLOW = pd.Series([3.2, 2.9, 2.6, 2.5, 2.3], index=STEPS)


def test_first_step_reaching_a_fixed_level():
    assert first_step_reaching(REFERENCE, 2.1) == 30
    assert first_step_reaching(REFERENCE, 1.0) == math.inf
    accuracy = pd.Series([0.2, 0.5, 0.7], index=[1, 2, 3])
    assert first_step_reaching(accuracy, 0.6, mode="max") == 3


def test_levels_and_steps_to_a_reference():
    assert target_level(REFERENCE) == 2.0 and target_level(REFERENCE, "best") == 1.9
    assert steps_to_target(REFERENCE, FAST) == 20  # FAST reaches 2.0 at step 20
    assert steps_to_target(REFERENCE, FAST, target="best") == 30  # and 1.9 at 30
    assert steps_to_target(REFERENCE, SLOW) == math.inf


def test_steps_saved_terminal_best_and_mirrored():
    assert steps_saved(REFERENCE, FAST) == pytest.approx(1 - 20 / 50)
    assert steps_saved(REFERENCE, FAST, target="best") == pytest.approx(1 - 30 / 40)  # the best is at 40
    # SLOW never gets to 2.0; REFERENCE reaches SLOW's terminal 2.3 at step 30 of SLOW's 50
    assert steps_saved(REFERENCE, SLOW) == pytest.approx(-(1 - 30 / 50))
    assert steps_saved(FAST, FAST) == pytest.approx(0.0)  # a monotone curve against itself
    assert steps_saved(REFERENCE, REFERENCE) == pytest.approx(1 - 40 / 50)  # it was at 2.0 already at 40


def test_bad_arguments_say_what_is_wrong():
    with pytest.raises(ValueError, match="mode must be"):
        first_step_reaching(REFERENCE, 1.0, mode="lowest")
    with pytest.raises(ValueError, match="target must be one of"):
        target_level(REFERENCE, "final")
    with pytest.raises(ValueError, match="empty reference curve"):
        target_level(pd.Series([], dtype=float))


def test_pair_runs_by_seed(tmp_path):
    for name, optimizer, seed in [("a0", "adamw", 0), ("a1", "adamw", 1), ("d0", "delta", 0), ("d2", "delta", 2)]:
        make_run(tmp_path / name, {"seed": seed}, {"val/loss": 1.0}, choices={"optimizer": optimizer})
    runs = {r.path.name: r for r in find_runs([tmp_path])}
    pairs = pair_runs([runs["d0"], runs["d2"]], [runs["a0"], runs["a1"]])
    assert [(r.path.name, ref.path.name) for r, ref in pairs] == [("d0", "a0")]
    with pytest.raises(ValueError, match="two reference runs share"):
        pair_runs([runs["d0"]], [runs["a0"], runs["a0"]])
