"""`reprolab-table` plugin: the paper's "steps saved" for each delta-rule run against its baseline.

Steps saved = 1 − s_Δ/s_A (paper §4): s_A is the baseline's last validation step, s_Δ the first step at
which the delta-rule run's validation loss reaches the baseline's last validation loss (negative, mirrored,
when it never does; `claim_lm.steps_saved`). A `delta_*` optimizer run is paired with the baseline run
(any other optimizer) of the same seed, data, model and learning rate. Written as `val/steps_saved_pct`.
"""

from __future__ import annotations

from experiments.deltamomentum.claim_lm import steps_saved
from reprolab.results.curves import run_curve
from reprolab.results.runs import Run

KEY = "val/steps_saved_pct"


def is_delta(run: Run) -> bool:
    return str(run.get("optimizer", "")).startswith("delta_")


def pair_key(run: Run) -> tuple:
    return run.get("seed"), run.get("data"), run.get("model"), run.get("optimizer.lr")


def val_curve(run: Run) -> dict | None:
    curve = run_curve(run, "val/loss")
    if curve is None or curve.empty:
        return None
    return {"steps": [int(s) for s in curve.index], "val": curve.to_list()}


def derive_metrics(runs: list[Run]) -> None:
    finished = [r for r in runs if r.finished]
    baselines = {pair_key(r): r for r in finished if not is_delta(r)}  # e.g. cifar10/small_sgd_cpu (paper cifar10)
    for run in filter(is_delta, finished):
        base = baselines.get(pair_key(run))
        curves = (val_curve(base), val_curve(run)) if base is not None else (None, None)
        if None not in curves:
            run.metrics[KEY] = 100.0 * steps_saved(*curves)
