"""Group finished runs by config values and aggregate each metric over the group (mean ± std, n).

The std is the sample standard deviation (ddof=1) over seeds; with one run it is reported as 0
and the table shows n=1, so nobody reads a single seed as a converged estimate.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from reprolab.results.runs import Run

# Override keys that never define a group: they vary between seeds, name places on disk, or say where
# results are logged and printed (a run logged to CSV and one logged to W&B are the same experiment).
NOT_A_GROUP = ("seed", "paths.", "hydra.", "hydra/", "data.data_dir", "ckpt_path", "logger", "name", "tags",
               "trainer.limit_", "print_config", "hparams_search", "trainer.enable_progress_bar")


@dataclass
class Cell:
    mean: float
    std: float
    n: int


@dataclass
class Row:
    key: tuple  # values of the group-by keys, in order
    cells: dict[str, Cell]
    n_finished: int
    failed: list[Run] = field(default_factory=list)
    incomplete: list[Run] = field(default_factory=list)


def default_group_by(runs: Sequence[Run]) -> list[str]:
    """The command-line override keys whose values differ between runs (seed excluded): for
    `-m optimizer=sgd,adamw seed=0,1,2` that is `optimizer`. Falls back to paper and setting."""
    keys: list[str] = []
    for run in runs:
        keys += [k for k in run.overrides if k not in keys and not k.startswith(NOT_A_GROUP)]
    varying = [k for k in keys if len({_hashable(run.get(k)) for run in runs}) > 1]
    if varying:
        return varying
    return [k for k in ("paper", "setting") if any(run.get(k) is not None for run in runs)]


def default_metrics(runs: Sequence[Run]) -> list[str]:
    """`test/*` metrics of the finished runs (else `val/*`), in first-seen order."""
    names: list[str] = []
    for run in runs:
        if run.finished:
            names += [k for k, v in run.metrics.items() if k not in names and _is_number(v)]
    for prefix in ("test/", "val/"):
        chosen = [k for k in names if k.startswith(prefix)]
        if chosen:
            return chosen
    return [k for k in names if k != "seed"]


def aggregate(runs: Sequence[Run], group_by: Sequence[str], metrics: Sequence[str]) -> list[Row]:
    """One row per distinct group-by value tuple, sorted; failed and incomplete runs are kept
    on their row so the table can say how many of each group did not finish."""
    groups: dict[tuple, list[Run]] = {}
    for run in runs:
        groups.setdefault(group_key(run, group_by), []).append(run)
    rows = []
    for key in sorted(groups, key=lambda k: tuple(_sort_key(v) for v in k)):
        members = groups[key]
        finished = [r for r in members if r.finished]
        cells = {}
        for metric in metrics:
            values = [float(r.metrics[metric]) for r in finished if _is_number(r.metrics.get(metric))]
            if values:
                cells[metric] = summarize(values)
        rows.append(
            Row(
                key=key,
                cells=cells,
                n_finished=len(finished),
                failed=[r for r in members if r.status == "failed"],
                incomplete=[r for r in members if r.status == "incomplete"],
            )
        )
    return rows


def summarize(values: Sequence[float]) -> Cell:
    finite = [v for v in values if math.isfinite(v)]
    if len(finite) < len(values):  # a diverged seed must show, not vanish into the mean
        return Cell(mean=float("nan"), std=float("nan"), n=len(values))
    std = statistics.stdev(values) if len(values) > 1 else 0.0
    return Cell(mean=statistics.fmean(values), std=std, n=len(values))


def group_key(run: Run, group_by: Sequence[str]) -> tuple:
    """The run's values of the group-by keys, made hashable."""
    return tuple(_hashable(run.get(k)) for k in group_by)


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _hashable(value: Any) -> Any:
    try:
        hash(value)
    except TypeError:
        return repr(value)
    return value


def _sort_key(value: Any) -> tuple:
    if value is None:
        return (0, 0, "")
    if _is_number(value):
        return (1, value, "")
    return (2, 0, str(value))
