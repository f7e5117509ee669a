"""`reprolab-table` plugin: the seen → unseen generalisation gap of each detection metric.

The paper's binary-detection claim is that detectors do well on generators seen in training and the open
problem is elsewhere (attribution); the gap `test/gap/<metric>` = seen − unseen (AUC, AP, acc; for EER,
unseen − seen, so a positive gap always means worse on unseen generators) puts a number on "generalises".
"""

from __future__ import annotations

from reprolab.results.runs import Run

LOWER_IS_BETTER = {"eer"}


def derive_metrics(runs: list[Run]) -> None:
    for run in runs:
        if not run.finished or run.get("paper") != "deepfakegenome":
            continue
        for key in [k for k in run.metrics if k.startswith("test/seen/")]:
            name = key.removeprefix("test/seen/")
            unseen = run.metrics.get(f"test/unseen/{name}")
            if unseen is None:
                continue
            gap = float(run.metrics[key]) - float(unseen)
            run.metrics[f"test/gap/{name}"] = -gap if name in LOWER_IS_BETTER else gap
