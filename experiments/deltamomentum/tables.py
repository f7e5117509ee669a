"""`reprolab-table` plugin: the paper's "steps saved" for each delta-rule run against its baseline.

Steps saved = 1 − s_Δ/s_A (paper §4): s_A is the baseline's last validation step, s_Δ the first step at
which the delta-rule run's validation loss reaches the baseline's last validation loss (negative, mirrored,
when it never does; `claim_lm.steps_saved`). Two pairings, both per seed within one data + model family:
- `val/steps_saved_pct`: a `delta_*` run against the baseline run (any other optimizer) at the same lr;
- `val/steps_saved_best_lr_pct` (when the table holds an lr grid): each optimizer at its own best lr, the
  lr with the lowest seed-mean terminal validation loss, as the paper compares tuned optimizers.
"""

from __future__ import annotations

from collections import defaultdict

import numpy as np

from experiments.deltamomentum.claim_lm import steps_saved
from reprolab.results.curves import run_curve
from reprolab.results.runs import Run

KEY, BEST_KEY = "val/steps_saved_pct", "val/steps_saved_best_lr_pct"


def is_delta(run: Run) -> bool:
    return str(run.get("optimizer", "")).startswith("delta_")


def family(run: Run) -> tuple:
    return run.get("data"), run.get("model")


def val_curve(run: Run) -> dict | None:
    curve = run_curve(run, "val/loss")
    if curve is None or curve.empty:
        return None
    return {"steps": [int(s) for s in curve.index], "val": curve.to_list()}


def best_lr(runs: list[Run], curves: dict[int, dict]) -> float:
    """The lr whose runs end with the lowest mean validation loss (the claim check's selection rule)."""
    by_lr = defaultdict(list)
    for run in runs:
        by_lr[run.get("optimizer.lr")].append(curves[id(run)]["val"][-1])
    return min(by_lr, key=lambda lr: float(np.mean(by_lr[lr])))


def derive_metrics(runs: list[Run]) -> None:
    curves = {id(r): c for r in runs if r.finished and (c := val_curve(r)) is not None}
    with_curve = [r for r in runs if id(r) in curves]
    groups: dict[tuple, dict[bool, list[Run]]] = defaultdict(lambda: {True: [], False: []})
    for run in with_curve:  # baselines may come from another paper's preset (cifar10/small_sgd_cpu)
        groups[family(run)][is_delta(run)].append(run)
    for members in groups.values():
        deltas, bases = members[True], members[False]
        if not deltas or not bases:
            continue
        same_lr = {(r.get("seed"), r.get("optimizer.lr")): r for r in bases}
        for run in deltas:
            base = same_lr.get((run.get("seed"), run.get("optimizer.lr")))
            if base is not None:
                run.metrics[KEY] = 100.0 * steps_saved(curves[id(base)], curves[id(run)])
        if len({r.get("optimizer.lr") for r in deltas + bases}) < 2:
            continue  # no lr grid: the equal-lr number is the only comparison
        base_lr, delta_lr = best_lr(bases, curves), best_lr(deltas, curves)
        tuned = {r.get("seed"): r for r in bases if r.get("optimizer.lr") == base_lr}
        for run in deltas:
            base = tuned.get(run.get("seed"))
            if run.get("optimizer.lr") == delta_lr and base is not None:
                run.metrics[BEST_KEY] = 100.0 * steps_saved(curves[id(base)], curves[id(run)])
