"""`reprolab-table` plugin: DeltaMomentum's step counts, on `reprolab.results.steps_to_target`.

- `val/steps_saved_pct`: steps saved (1 − s_Δ/s_A, paper §4) by a `delta_*` run against the baseline run
  (any other optimizer) of the same seed and lr, at the baseline's terminal validation loss;
- `val/steps_saved_best_lr_pct` (when the runs hold an lr grid): each optimizer at its own best lr (the lowest
  seed-mean terminal validation loss), paired by seed, as the paper compares tuned optimizers;
- `val/steps_saved_tuned_pct` (when the baseline runs are one configuration, one run per seed: the tuned
  comparison of `make claim-deltamomentum-tuned`, each optimizer at its own tuned lr, β₂, warm-up and weight
  decay): every delta run against the baseline run of its seed, whatever the two runs' hyper-parameters;
- `val/steps_to_target`: for runs that stop early on a fixed level (claim 1's 1 % excess risk,
  `callbacks.early_stopping.stopping_threshold`), the first step at that level (inf: never reached), and
  `val/steps_to_target_capped` (never reached counts as 2 × max_steps) to choose the lr of a grid by;
- `coord/*` (claim 4, from `coord_check.json`): mean |h₀| and |h_k − h₀| of the last block, mean |Δlogits|
  after the k checked steps, the mean λ̂max of the hidden key covariances, and `coord/max_abs_log2_ratio`,
  the largest |log₂(x_width / x_base)| of the three coordinates against the narrowest width of the sweep
  (same η and seed): 0 is perfectly width-invariant, log₂ 16 = 4 is growth ∝ width over 16×.
Steps count optimizer steps: Lightning logs the validation after step k at index k − 1.
"""

from __future__ import annotations

import json
import math
from collections import defaultdict

import numpy as np
import pandas as pd

from reprolab.results.curves import run_curve
from reprolab.results.runs import Run
from reprolab.results.steps_to_target import first_step_reaching, pair_runs, steps_saved

KEY, BEST_KEY, TO_TARGET = "val/steps_saved_pct", "val/steps_saved_best_lr_pct", "val/steps_to_target"
TUNED_KEY = "val/steps_saved_tuned_pct"
CAPPED = "val/steps_to_target_capped"
THRESHOLD = "callbacks.early_stopping.stopping_threshold"
COORDS, HIDDEN = ("h0", "dh", "dlogits"), (".q", ".o", ".gate", ".down")  # one key Gram per HIDDEN layer


def is_delta(run: Run) -> bool:
    return str(run.get("optimizer", "")).startswith("delta_")


def family(run: Run) -> tuple:
    return run.get("data"), run.get("data.path"), run.get("model")


def step_curve(run: Run, metric: str) -> pd.Series | None:
    """`metric` against the number of optimizer steps taken, or None when the run did not log it."""
    curve = run_curve(run, metric)
    if curve is None or curve.empty:
        return None
    curve.index = curve.index + 1
    return curve


def best_lr(runs: list[Run], curves: dict[int, pd.Series]) -> float:
    """The lr whose runs end with the lowest mean validation loss (the claim's selection rule)."""
    by_lr = defaultdict(list)
    for run in runs:
        by_lr[run.get("optimizer.lr")].append(curves[id(run)].iloc[-1])
    return min(by_lr, key=lambda lr: float(np.mean(by_lr[lr])))


def add_steps_saved(deltas: list[Run], bases: list[Run], curves: dict[int, pd.Series]) -> None:
    for run, base in pair_runs(deltas, bases, by=("seed", "optimizer.lr")):
        run.metrics[KEY] = 100.0 * steps_saved(curves[id(base)], curves[id(run)])
    seeds = [str(base.get("seed")) for base in bases]
    if len(set(seeds)) == len(seeds):  # one baseline configuration: pair by seed alone
        for run, base in pair_runs(deltas, bases):
            run.metrics[TUNED_KEY] = 100.0 * steps_saved(curves[id(base)], curves[id(run)])
    if len({r.get("optimizer.lr") for r in deltas + bases}) < 2:
        return  # no lr grid: the equal-lr number is the only comparison
    base_lr, delta_lr = best_lr(bases, curves), best_lr(deltas, curves)
    tuned_bases = [r for r in bases if r.get("optimizer.lr") == base_lr]
    tuned_deltas = [r for r in deltas if r.get("optimizer.lr") == delta_lr]
    for run, base in pair_runs(tuned_deltas, tuned_bases):
        run.metrics[BEST_KEY] = 100.0 * steps_saved(curves[id(base)], curves[id(run)])


def add_steps_to_target(runs: list[Run]) -> None:
    for run in runs:
        level = run.get(THRESHOLD)
        curve = step_curve(run, str(run.get("monitor.metric"))) if level is not None and run.finished else None
        if curve is not None:
            steps = first_step_reaching(curve, float(level), str(run.get("monitor.mode", "min")))
            run.metrics[TO_TARGET] = steps
            run.metrics[CAPPED] = min(steps, 2.0 * float(run.get("trainer.max_steps")))


def coordinates(run: Run) -> dict | None:
    """Claim 4's numbers from the run's CoordinateCheck record (None when it has none)."""
    path = run.path / "coord_check.json"
    if not path.exists():
        return None
    record = json.loads(path.read_text())
    last_block = max(k for k in record["activation"] if k.startswith("model.blocks."))
    hidden = [v for k, v in record.get("key_scales", {}).items() if k.endswith(HIDDEN)]
    return {"h0": record["activation"][last_block][0], "dh": record["activation_change"][last_block][-1],
            "dlogits": record["activation_change"]["model"][-1],
            "lmax_hidden": float(np.mean(hidden)) if hidden else math.nan}


def add_coordinates(runs: list[Run]) -> None:
    sweeps = defaultdict(list)
    for run in runs:
        if run.finished and (coords := coordinates(run)) is not None:
            run.metrics.update({f"coord/{k}": v for k, v in coords.items()})
            sweeps[run.get("optimizer.eta"), run.get("seed"), run.get("data.path")].append(run)
    for members in sweeps.values():
        base = min(members, key=lambda r: int(r.get("model.d_model")))
        for run in members:
            run.metrics["coord/max_abs_log2_ratio"] = max(
                abs(math.log2(run.metrics[f"coord/{k}"] / base.metrics[f"coord/{k}"])) for k in COORDS)


def derive_metrics(runs: list[Run]) -> None:
    add_steps_to_target(runs)
    add_coordinates(runs)
    curves = {id(r): c for r in runs if r.finished and r.get(THRESHOLD) is None
              and (c := step_curve(r, "val/loss")) is not None and math.isfinite(c.iloc[-1])}
    groups: dict[tuple, dict[bool, list[Run]]] = defaultdict(lambda: {True: [], False: []})
    for run in runs:  # baselines may come from another paper's preset (cifar10/small_sgd_cpu)
        if id(run) in curves:
            groups[family(run)][is_delta(run)].append(run)
    for members in groups.values():
        if members[True] and members[False]:
            add_steps_saved(members[True], members[False], curves)
