"""`reprolab-table` plugin: each test set's RMSE gain over bicubic upsampling (group rows by `data.scale`).

The depth-SR task logs `test/rmse_<set>` and the bicubic input's `test/rmse_bicubic_<set>` in the same
convention (experiments/degbins/metrics.py); `test/gain_<set>` = bicubic − model (positive: the network
improves on its own input).
"""

from __future__ import annotations

from reprolab.results.runs import Run

PREFIX, BICUBIC = "test/rmse_", "test/rmse_bicubic_"


def derive_metrics(runs: list[Run]) -> None:
    for run in runs:
        if not run.finished or run.get("paper") != "degbins":
            continue
        for key in [k for k in run.metrics if k.startswith(BICUBIC)]:
            name = key.removeprefix(BICUBIC)
            if f"{PREFIX}{name}" in run.metrics:
                run.metrics[f"test/gain_{name}"] = float(run.metrics[key]) - float(run.metrics[f"{PREFIX}{name}"])
