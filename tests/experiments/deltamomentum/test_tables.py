"""The DeltaMomentum table plugin: steps saved against the seed's baseline, steps to a fixed target, μP coordinates.

Curves are written as Lightning logs them: the validation after optimizer step k at index k − 1."""

from __future__ import annotations

import pytest

from experiments.deltamomentum.tables import KEY, derive_metrics
from reprolab.results.runs import find_runs
from tests.core.results.run_folders import make_run

STEPS = [20, 40, 60, 80, 100]


def _run(root, name, optimizer, seed, losses, lr=3e-3):
    config = {"seed": seed, "paper": "deltamomentum", "optimizer": {"lr": lr}}
    make_run(root / name, config, {"val/loss": losses[-1]}, choices={"optimizer": optimizer, "data": "text_file",
             "model": "llama_tiny"}, curve={"val/loss": [(s - 1, v) for s, v in zip(STEPS, losses, strict=True)]})


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


def test_steps_saved_against_one_tuned_baseline_configuration(tmp_path):
    """The tuned comparison: every optimizer at its own hyper-parameters (other lrs), paired by seed alone; the
    trivial arm (η 0 at DeltaAdamW's tuned config) is a delta run and is paired the same way."""
    from experiments.deltamomentum.tables import TUNED_KEY

    _run(tmp_path, "a0", "adamw", 0, [3.0, 2.5, 2.2, 2.1, 2.0], lr=4e-3)
    _run(tmp_path, "a1", "adamw", 1, [3.0, 2.0, 1.9, 1.8, 1.5], lr=4e-3)
    _run(tmp_path, "d0", "delta_adamw", 0, [2.8, 2.3, 2.0, 1.9, 1.8], lr=9e-3)  # 2.0 at step 60: 1 − 60/100
    _run(tmp_path, "d1", "delta_adamw", 1, [3.0, 2.5, 2.2, 2.1, 2.0], lr=9e-3)  # never 1.5; AdamW 2.0 at 40
    _run(tmp_path, "t0", "delta_adamw", 0, [3.0, 2.6, 2.3, 2.2, 2.1], lr=9e-3)  # never 2.0; AdamW 2.1 at 80
    runs = find_runs([tmp_path])
    derive_metrics(runs)
    tuned = {r.path.name: r.metrics.get(TUNED_KEY) for r in runs}
    assert tuned["d0"] == pytest.approx(40.0) and tuned["d1"] == pytest.approx(-60.0)
    assert tuned["t0"] == pytest.approx(-20.0)  # mirrored: −(1 − 80/100)
    assert tuned["a0"] is None and all(KEY not in r.metrics for r in runs)  # no equal-lr pair


def test_no_tuned_metric_against_a_baseline_grid(tmp_path):
    from experiments.deltamomentum.tables import TUNED_KEY

    for lr in (3e-3, 1e-2):  # two baseline runs of seed 0: which one is "the" baseline is not defined
        _run(tmp_path, f"a{lr}", "adamw", 0, [3.0, 2.5, 2.2, 2.1, 2.0], lr=lr)
    _run(tmp_path, "d0", "delta_adamw", 0, [2.8, 2.3, 2.0, 1.9, 1.8])
    runs = find_runs([tmp_path])
    derive_metrics(runs)
    assert all(TUNED_KEY not in r.metrics for r in runs)


def test_steps_to_a_fixed_target(tmp_path):
    from experiments.deltamomentum.tables import CAPPED, TO_TARGET

    config = {"seed": 0, "paper": "deltamomentum", "optimizer": {"lr": 0.1}, "trainer": {"max_steps": 50},
              "monitor": {"metric": "val/relative_excess_risk", "mode": "min"},
              "callbacks": {"early_stopping": {"stopping_threshold": 0.01}}}
    make_run(tmp_path / "fast", config, {"val/relative_excess_risk": 0.009},
             curve={"val/relative_excess_risk": [(0, 0.5), (1, 0.05), (2, 0.009)]})
    make_run(tmp_path / "never", config, {"val/relative_excess_risk": 0.5},
             curve={"val/relative_excess_risk": [(0, 0.5), (1, 0.4)]})
    runs = {r.path.name: r for r in find_runs([tmp_path])}
    derive_metrics(list(runs.values()))
    assert runs["fast"].metrics[TO_TARGET] == 3  # logged at index 2 = after the third step
    assert runs["never"].metrics[TO_TARGET] == float("inf")
    assert runs["never"].metrics[CAPPED] == 100 and runs["fast"].metrics[CAPPED] == 3  # the lr-choice rule
    assert KEY not in runs["fast"].metrics  # stream runs are not compared by validation loss


def test_coordinates_and_their_spread_over_width(tmp_path):
    import json

    def coord_run(name, width, dlogits):
        folder = tmp_path / name
        make_run(folder, {"seed": 0, "optimizer": {"eta": 0.5}, "model": {"d_model": width}}, {"val/loss": 3.0})
        record = {"steps": [0, 5], "activation": {"model.blocks.0": [9.0, 9.0], "model.blocks.1": [0.02, 0.03],
                                                   "model": [1.0, 1.5]},
                  "activation_change": {"model.blocks.1": [0.0, 0.2], "model": [0.0, dlogits]},
                  "key_scales": {"blocks.1.attn.q": 10.0 * width / 32, "blocks.1.mlp.down": 2.0, "blocks.1.attn.k": 99.0}}
        (folder / "coord_check.json").write_text(json.dumps(record))

    coord_run("w32", 32, 1.0)
    coord_run("w128", 128, 4.0)  # logits updates grow ∝ width: log2 ratio 2
    runs = {r.path.name: r for r in find_runs([tmp_path])}
    derive_metrics(list(runs.values()))
    wide = runs["w128"].metrics
    assert wide["coord/h0"] == 0.02 and wide["coord/dh"] == 0.2 and wide["coord/dlogits"] == 4.0
    assert wide["coord/lmax_hidden"] == pytest.approx((40.0 + 2.0) / 2)  # .q and .down; .k shares .q's Gram
    assert wide["coord/max_abs_log2_ratio"] == pytest.approx(2.0)
    assert runs["w32"].metrics["coord/max_abs_log2_ratio"] == 0.0
