"""The DeltaMomentum table plugin: steps saved of each delta-rule run against its seed's baseline."""

from __future__ import annotations

import pytest

from experiments.deltamomentum.tables import KEY, derive_metrics
from reprolab.results.runs import find_runs
from tests.core.results.run_folders import make_run

STEPS = [20, 40, 60, 80, 100]


def _run(root, name, optimizer, seed, losses, lr=3e-3):
    config = {"seed": seed, "paper": "deltamomentum", "optimizer": {"lr": lr}}
    make_run(root / name, config, {"val/loss": losses[-1]}, choices={"optimizer": optimizer, "data": "text_file",
             "model": "llama_tiny"}, curve={"val/loss": list(zip(STEPS, losses, strict=True))})


def test_steps_saved_pairs_by_seed_and_lr(tmp_path):
    _run(tmp_path, "a0", "adamw", 0, [3.0, 2.5, 2.2, 2.1, 2.0])
    _run(tmp_path, "d0", "delta_adamw", 0, [2.8, 2.3, 2.0, 1.9, 1.8])  # reaches 2.0 at step 60: 1 − 60/100
    _run(tmp_path, "a1", "adamw", 1, [3.0, 2.0, 1.9, 1.8, 1.5])
    _run(tmp_path, "d1", "delta_adamw", 1, [3.0, 2.5, 2.2, 2.1, 2.0])  # never reaches 1.5; AdamW reaches 2.0 at 40
    _run(tmp_path, "d2", "delta_adamw", 0, [2.0] * 5, lr=1e-2)  # no baseline at this lr
    runs = find_runs([tmp_path])
    derive_metrics(runs)
    saved = {r.path.name: r.metrics.get(KEY) for r in runs}
    assert saved["d0"] == pytest.approx(40.0)
    assert saved["d1"] == pytest.approx(-60.0)  # mirrored: −(1 − 40/100)
    assert saved["d2"] is None and saved["a0"] is None


def test_steps_saved_at_each_optimizers_best_lr(tmp_path):
    from experiments.deltamomentum.tables import BEST_KEY

    _run(tmp_path, "a0", "adamw", 0, [3.0, 2.5, 2.2, 2.1, 2.0])
    _run(tmp_path, "a1", "adamw", 1, [3.0, 2.4, 2.2, 2.1, 2.0])  # AdamW's best lr: 3e-3 (mean final 2.0)
    _run(tmp_path, "a0hi", "adamw", 0, [3.0, 2.9, 2.8, 2.7, 2.6], lr=1e-2)
    _run(tmp_path, "a1hi", "adamw", 1, [3.0, 2.9, 2.8, 2.7, 2.6], lr=1e-2)
    _run(tmp_path, "d0", "delta_adamw", 0, [3.0, 2.5, 2.2, 2.1, 2.0])  # delta at 3e-3: mean final 2.0
    _run(tmp_path, "d1", "delta_adamw", 1, [3.0, 2.5, 2.2, 2.1, 2.0])
    _run(tmp_path, "d0hi", "delta_adamw", 0, [2.5, 2.0, 1.8, 1.7, 1.6], lr=1e-2)  # best (1.6): reaches 2.0 at 40
    _run(tmp_path, "d1hi", "delta_adamw", 1, [2.5, 2.2, 2.0, 1.7, 1.6], lr=1e-2)  # reaches 2.0 at 60
    runs = find_runs([tmp_path])
    derive_metrics(runs)
    best = {r.path.name: r.metrics.get(BEST_KEY) for r in runs}
    assert best["d0hi"] == pytest.approx(60.0) and best["d1hi"] == pytest.approx(40.0)
    assert best["d0"] is None and best["a0"] is None  # only the delta runs at their best lr get it
    same_lr = {r.path.name: r.metrics.get(KEY) for r in runs}
    assert same_lr["d0"] == pytest.approx(0.0)  # equal curves: reaches 2.0 at the last step
    assert same_lr["d0hi"] == pytest.approx(100.0 * (1 - 20 / 100))  # vs AdamW at 1e-2 (final 2.6)


def test_no_lr_grid_no_best_lr_metric(tmp_path):
    from experiments.deltamomentum.tables import BEST_KEY

    _run(tmp_path, "a0", "adamw", 0, [3.0, 2.5, 2.2, 2.1, 2.0])
    _run(tmp_path, "d0", "delta_adamw", 0, [2.8, 2.3, 2.0, 1.9, 1.8])
    runs = find_runs([tmp_path])
    derive_metrics(runs)
    assert all(BEST_KEY not in r.metrics for r in runs)
