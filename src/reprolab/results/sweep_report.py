"""`<sweep>/sweep_report.json`: which runs of a multirun finished and which failed, and why.

Registered as a Hydra callback (`conf/hydra/callbacks/sweep_report.yaml`). After every job it
rescans the sweep folder, so the report is current even when the sweep itself stops on an error
(Hydra's basic sweeper raises after its batch when a job failed; Optuna stops past
`max_failure_rate`) or runs its jobs on SLURM nodes. A job that raised without leaving
`error.txt` (an error outside `ReprolabError`) gets one written from Hydra's job return.
Before the sweep starts it checks that a SLURM launcher is sized like the device group and
creates the folder of an Optuna sqlite storage.
"""

from __future__ import annotations

import fcntl
import json
import os
import sys
from pathlib import Path
from typing import Any

from hydra.core.utils import JobReturn, JobStatus
from hydra.experimental.callback import Callback
from hydra.types import RunMode
from omegaconf import DictConfig

from reprolab.cli.errors import ConfigError, RunFolderBusyError, one_line
from reprolab.results.runs import ERROR_FILE, FAILED, FINISHED, INCOMPLETE, load_status, run_dirs

REPORT_FILE = "sweep_report.json"
SQLITE = "sqlite:///"


def build_report(sweep_dir: str | Path) -> dict[str, Any]:
    """Finished, failed and incomplete runs under `sweep_dir`, each with its overrides (read from each run's
    status files and `overrides.yaml` only: parsing every run's config made a rescan ~0.1 s per run)."""
    sweep_dir = Path(sweep_dir)
    runs = [load_status(path) for path in run_dirs([sweep_dir])] if sweep_dir.is_dir() else []
    entries: dict[str, list[dict[str, Any]]] = {FINISHED: [], FAILED: [], INCOMPLETE: []}
    for run in runs:
        entry = {
            "run": str(run.path.relative_to(sweep_dir)),
            "overrides": [f"{k}={v}" for k, v in run.overrides.items()],
        }
        if run.status == FAILED:
            entry["error"] = run.error
        entries[run.status].append(entry)
    return {
        "sweep_dir": str(sweep_dir),
        "n_runs": len(runs),
        "n_finished": len(entries[FINISHED]),
        "n_failed": len(entries[FAILED]),
        "n_incomplete": len(entries[INCOMPLETE]),
        **entries,
    }


def write_report(sweep_dir: str | Path) -> dict[str, Any]:
    """Rebuild and write the report under a file lock (jobs on several nodes may finish together)."""
    sweep_dir = Path(sweep_dir)
    sweep_dir.mkdir(parents=True, exist_ok=True)
    with open(sweep_dir / f".{REPORT_FILE}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        report = build_report(sweep_dir)
        tmp = sweep_dir / f"{REPORT_FILE}.tmp{os.getpid()}"
        tmp.write_text(json.dumps(report, indent=2) + "\n")
        tmp.replace(sweep_dir / REPORT_FILE)
    return report


def failure(job_return: JobReturn) -> BaseException | None:
    """The exception a failed job raised (reading `return_value` of a failed job re-raises it), else None."""
    if job_return.status != JobStatus.FAILED:
        return None
    try:
        job_return.return_value  # noqa: B018 — raises the job's exception
    except Exception as err:  # noqa: BLE001
        return err
    return None


class SweepReport(Callback):
    """Hydra callback keeping `<hydra.sweep.dir>/sweep_report.json` current during a multirun."""

    def on_multirun_start(self, config: DictConfig, **kwargs: Any) -> None:
        check_slurm_sizes(config)
        Path(config.hydra.sweep.dir).mkdir(parents=True, exist_ok=True)
        storage = str(config.hydra.sweeper.get("storage") or "")
        if storage.startswith(SQLITE):  # sqlite creates the file, not its folder
            Path(storage[len(SQLITE) :]).parent.mkdir(parents=True, exist_ok=True)

    def on_job_end(self, config: DictConfig, job_return: JobReturn, **kwargs: Any) -> None:
        err = failure(job_return)
        if err is not None and not isinstance(err, RunFolderBusyError):  # a busy folder is another run's
            error_file = Path(config.hydra.runtime.output_dir) / ERROR_FILE
            if not error_file.exists():
                error_file.write_text(f"{type(err).__name__}: {one_line(err)}\n")
        if config.hydra.mode == RunMode.MULTIRUN:  # a single run has no sweep folder to report in
            write_report(config.hydra.sweep.dir)

    def on_multirun_end(self, config: DictConfig, **kwargs: Any) -> None:
        report = write_report(config.hydra.sweep.dir)
        print(
            f"sweep report: {report['n_finished']} finished, {report['n_failed']} failed, "
            f"{report['n_incomplete']} incomplete → {Path(config.hydra.sweep.dir) / REPORT_FILE}"
        )


def check_slurm_sizes(config: DictConfig) -> None:
    """A SLURM job must start one task per device Lightning will use (and, on GPUs, one GPU per
    task), or Lightning refuses the world size; `device.devices=-1` ('all GPUs here') cannot size a
    reservation."""
    launcher = config.hydra.get("launcher")
    if launcher is None or "SlurmLauncher" not in str(launcher.get("_target_", "")):
        return
    gpus, tasks = launcher.get("gpus_per_node"), launcher.get("tasks_per_node")
    on_cpu = config.device.get("accelerator") == "cpu"
    if not isinstance(tasks, int) or tasks < 1 or not (on_cpu or gpus == tasks):
        err = ConfigError(
            f"hydra/launcher=slurm needs a device count per node, got gpus_per_node={gpus} "
            f"tasks_per_node={tasks} (from device.devices={config.device.get('devices')}); "
            "set device.devices=<GPUs per node> (and device.num_nodes=<nodes> with device=multinode)"
        )
        # Hydra turns a callback's exception into a warning; this must stop the sweep before sbatch.
        print(f"error: {one_line(err)}", file=sys.stderr)
        raise SystemExit(err.exit_code)
