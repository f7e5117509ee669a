"""`reprolab-table` plugin: Δm% of every MTL run against the single-task runs of the same table.

Δm% = (100/K) Σ_k (−1)^{h_k} (M_k − S_k) / S_k (Maninis et al., CVPR 2019, eq. 9; the paper's §5 metric),
h_k = 1 when higher is better. S_k is the seed-mean test metric of the single-task runs
(`task.single_task=<t>`) of the task that owns metric k, trained in the same setting with the same plain
optimizer (an `apt_*` run is compared with the plain optimizer's STL, as in `make claim-apt`). The result
is `test/delta_m_own_stl`; a run's logged `test/delta_m` (published STL numbers) is left as it is.
"""

from __future__ import annotations

from collections import defaultdict

import numpy as np
from hydra.utils import instantiate
from omegaconf import OmegaConf

from reprolab.mtl.metrics import delta_m
from reprolab.results.runs import CONFIG_FILE, Run

KEY = "test/delta_m_own_stl"


def plain_optimizer(run: Run) -> str:
    return str(run.get("optimizer", "")).removeprefix("apt_")


def owner(metric: str, task_names) -> str | None:
    """The task a benchmark metric belongs to (`seg_miou` → `seg`, `heating` → `heating`)."""
    return next((t for t in task_names if metric == t or metric.startswith(f"{t}_")), None)


def benchmark_of(run: Run, cache: dict):
    """The run's benchmark object (task names, higher-is-better), built once per distinct benchmark config."""
    key = tuple(sorted((k, v) for k, v in run.config.items() if k.startswith("task.benchmark.")))
    if key not in cache:
        cache[key] = instantiate(OmegaConf.load(run.path / CONFIG_FILE).task.benchmark)
    return cache[key]


def derive_metrics(runs: list[Run]) -> None:
    stl: dict[tuple, list[float]] = defaultdict(list)  # (setting, optimizer, metric) → values over seeds
    mtl, benchmarks = [], {}
    for run in runs:
        if not run.finished or run.get("paper") != "apt":
            continue
        benchmark = benchmark_of(run, benchmarks)
        single = run.get("task.single_task")
        if single is None:
            mtl.append((run, benchmark))
            continue
        for k in benchmark.higher:
            if owner(k, benchmark.task_names) == single and f"test/{k}" in run.metrics:
                stl[(run.get("setting"), plain_optimizer(run), k)].append(float(run.metrics[f"test/{k}"]))
    for run, benchmark in mtl:
        base = {k: stl.get((run.get("setting"), plain_optimizer(run), k)) for k in benchmark.higher}
        if any(not v for v in base.values()):
            continue  # no single-task runs for some task of this setting/optimizer: nothing to compare with
        method = {k: float(run.metrics[f"test/{k}"]) for k in benchmark.higher}
        run.metrics[KEY] = delta_m(method, {k: float(np.mean(v)) for k, v in base.items()}, benchmark.higher)
