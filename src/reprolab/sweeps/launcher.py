"""A sweep's jobs on every core: Hydra's `Launcher` interface over a pool of forked worker processes.

`hydra/launcher=parallel hydra.launcher.n_jobs=N` (`make claim-<paper> JOBS=N`) runs the jobs of a `-m` sweep N
at a time. The workers are forked from the sweep's process once it has composed the sweep, so each starts with
torch, Lightning and Hydra already imported (a spawned worker pays ~5 s of imports, which is what made the stock
joblib launcher slower than serial on sweeps of sub-second jobs), and they stay warm: each takes the next job as
it finishes one. A job runs exactly as under Hydra's basic launcher (`run_job`, its own folder, log and sweep
callbacks), on `cpu_count // N` threads (one under `OMP_NUM_THREADS=1`, as the claim targets set). Skip/resume,
folder locks, the finished-run records and the sweep report are files, so they hold across processes. A failed
job does not stop the others. Ctrl-C stops the workers; finished jobs keep their results, and a rerun of the
same command finishes the rest.
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import pickle
import signal
from collections.abc import Sequence
from pathlib import Path

from hydra.core.utils import JobReturn, JobStatus, configure_log, filter_overrides, run_job, setup_globals
from hydra.plugins.launcher import Launcher
from hydra.types import HydraContext, TaskFunction
from omegaconf import DictConfig, open_dict

log = logging.getLogger(__name__)

_STATE: dict = {}  # what the forked workers read: the launcher's context and the sweep's job overrides


def cores() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def _threads_per_job(n_jobs: int) -> int:
    """Each job's share of the cores; an explicit `OMP_NUM_THREADS` (the claim targets' 1) wins."""
    if os.environ.get("OMP_NUM_THREADS"):
        return max(1, int(os.environ["OMP_NUM_THREADS"]))
    return max(1, cores() // n_jobs)


def _start_worker(n_jobs: int) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the sweep process's to handle: it stops the pool
    import torch

    torch.set_num_threads(_threads_per_job(n_jobs))


def _picklable(ret: JobReturn) -> JobReturn:
    """A failed job's exception travels back to the sweep process; one that cannot be pickled travels as its text."""
    try:
        pickle.dumps(ret)
        return ret
    except Exception:  # noqa: BLE001 — an exception with a custom constructor, an unpicklable value
        pass
    try:
        value = ret.return_value  # re-raises a failed job's exception
    except Exception as err:  # noqa: BLE001
        value = RuntimeError(f"{type(err).__name__}: {err}")
    ret.return_value = value if ret.status == JobStatus.FAILED else None
    return ret


def run_one(index: int) -> JobReturn:
    """Job `index` of the sweep, in a worker: composed and run as Hydra's basic launcher runs it."""
    launcher, overrides, initial = _STATE["launcher"], _STATE["overrides"], _STATE["initial_job_idx"]
    setup_globals()
    idx = initial + index
    sweep_config = launcher.hydra_context.config_loader.load_sweep_config(launcher.config, list(overrides[index]))
    with open_dict(sweep_config):
        sweep_config.hydra.job.id = idx
        sweep_config.hydra.job.num = idx
    ret = run_job(hydra_context=launcher.hydra_context, task_function=launcher.task_function, config=sweep_config,
                  job_dir_key="hydra.sweep.dir", job_subdir_key="hydra.sweep.subdir")
    configure_log(launcher.config.hydra.hydra_logging, launcher.config.hydra.verbose)
    return _picklable(ret)


class ParallelLauncher(Launcher):
    def __init__(self, n_jobs: int | None = None) -> None:
        self.n_jobs = n_jobs
        self.config: DictConfig | None = None
        self.task_function: TaskFunction | None = None
        self.hydra_context: HydraContext | None = None

    def setup(self, *, hydra_context: HydraContext, task_function: TaskFunction, config: DictConfig) -> None:
        self.config, self.hydra_context, self.task_function = config, hydra_context, task_function

    def launch(self, job_overrides: Sequence[Sequence[str]], initial_job_idx: int) -> Sequence[JobReturn]:
        setup_globals()
        assert self.config is not None and self.hydra_context is not None and self.task_function is not None
        configure_log(self.config.hydra.hydra_logging, self.config.hydra.verbose)
        Path(str(self.config.hydra.sweep.dir)).mkdir(parents=True, exist_ok=True)
        n_jobs = max(1, min(int(self.n_jobs or cores()), len(job_overrides)))
        log.info(f"Launching {len(job_overrides)} jobs, {n_jobs} at a time")
        for idx, overrides in enumerate(job_overrides):
            log.info(f"\t#{initial_job_idx + idx} : {' '.join(filter_overrides(overrides))}")
        _STATE.update(launcher=self, overrides=list(job_overrides), initial_job_idx=initial_job_idx)
        try:
            if n_jobs == 1:
                return [run_one(i) for i in range(len(job_overrides))]
            context = multiprocessing.get_context("fork")
            with context.Pool(n_jobs, initializer=_start_worker, initargs=(n_jobs,), maxtasksperchild=None) as pool:
                try:
                    results = pool.map_async(run_one, range(len(job_overrides)), chunksize=1)
                    returns = results.get()
                except KeyboardInterrupt:
                    pool.terminate()
                    raise
            return returns
        finally:
            _STATE.clear()

