"""The Hydra callback of every multirun, and what makes a rerun sweep finish only what is missing.

`SweepReport` rescans the whole sweep folder after each job (each run's status files and overrides, ~1 ms a
run folder): O(n²) over a sweep. Here the report is rewritten after a failed job, after any job when
`report_interval_s` has passed since the last write, and when the sweep ends.

Rerunning a sweep into the same folder (`resume=true`, the default): a job whose folder holds
`metrics.json` from the same composed config (`config_hash`; a hash written by an older rule,
`legacy_config_hash`, still counts and is rewritten) is skipped, one with only
`checkpoints/last.ckpt` from the same config resumes from it, the rest start; files a job of another
config left are moved to `replaced-<hash>-<time>/` first, with the `.hydra/` record of the run they came from when it
had finished (reprolab.sweeps.finished_records); a finished run whose saved config lacks only keys added since says once
how to keep it (reprolab.sweeps.rerun_notice). Each job writes its decision beside its metrics. In a
job whose ranks SLURM starts (device=ddp under hydra/launcher=slurm) every rank decides alike; rank 0 alone
moves and writes files.
"""

from __future__ import annotations

import shutil
import time
from pathlib import Path
from typing import Any

from hydra.core.utils import JobReturn, JobStatus
from lightning.pytorch.utilities import rank_zero_only
from omegaconf import DictConfig

from reprolab.results.runs import SET_ASIDE_PREFIX
from reprolab.results.sweep_report import SweepReport
from reprolab.run.folder import ERROR_FILE, LOCK_FILE, METRICS_FILE
from reprolab.sweeps.config_hash import HASH_FILE, config_hash, legacy_config_hash
from reprolab.sweeps.finished_records import remember_finished
from reprolab.sweeps.rerun_notice import forget_notices, notices_after

DECISION_FILE = "sweep_decision"
DECISIONS = ("skipped", "resumed", "started")


def decide_job(cfg: DictConfig, run_dir: str | Path, resume: bool = True, resolved: dict | None = None,
               record: dict[str, str] | None = None) -> tuple[str, Path | None]:
    """('skipped', metrics.json) | ('resumed', last.ckpt) | ('started', None) for the job of `cfg` in `run_dir`.

    Files left by another config (or all of them when `resume` is false) go to `replaced-<old hash>-<time>/`, with
    `record` ({file name: text}, the `.hydra/` the run had when the sweep started: finished_records.saved_record) in
    its `.hydra/`. Without one (the run had not finished, or lacked its record) the set-aside folder has no `.hydra/`.
    Only a sweep job decides: a single run into a folder holding a finished run is refused (RunFolderLock).
    """
    run_dir = Path(run_dir)
    new = config_hash(cfg, resolved)
    hash_file = run_dir / HASH_FILE
    old = hash_file.read_text().strip() if hash_file.is_file() else None
    metrics, last = run_dir / METRICS_FILE, run_dir / "checkpoints" / "last.ckpt"
    writer = rank_zero_only.rank == 0  # the other ranks of a job SLURM started read the same folder, change nothing
    if old not in (None, new) and old == legacy_config_hash(cfg, resolved):
        old = new
        if writer:
            hash_file.write_text(new + "\n")
    if resume and old == new:
        if metrics.is_file():
            return "skipped", metrics
        if last.is_file():
            if writer:
                (run_dir / ERROR_FILE).unlink(missing_ok=True)  # the killed attempt's error, not this run's
            return "resumed", last
    if writer:
        _move_aside(run_dir, old or "unknown", record)
        run_dir.mkdir(parents=True, exist_ok=True)
        hash_file.write_text(new + "\n")
    return "started", None


KEPT = (".hydra", LOCK_FILE, HASH_FILE, DECISION_FILE, ".submitit")  # this job's own (Hydra wrote `.hydra/` already)


def _move_aside(run_dir: Path, old_hash: str, record: dict[str, str] | None = None) -> None:
    """Everything the other config's run left (metrics, checkpoints, logger folders such as `csv/` or `wandb/`, its
    `eval/`), so that a new run neither overwrites its curves nor mixes with them, and its `.hydra/` `record`. The
    job log (`train.log`) stays: Hydra's handler already appends this job's records to it."""
    if not run_dir.is_dir():
        return
    stale = [path for path in run_dir.iterdir() if path.name not in KEPT and path.suffix != ".log"
             and not path.name.startswith(SET_ASIDE_PREFIX)]
    if not stale:
        return
    dest = run_dir / f"{SET_ASIDE_PREFIX}{old_hash[:12]}-{time.strftime('%Y%m%d-%H%M%S')}"
    dest.mkdir(parents=True, exist_ok=True)
    for path in stale:
        shutil.move(str(path), str(dest / path.name))
    if record:
        Path(dest, ".hydra").mkdir()
        for name, text in record.items():
            Path(dest, ".hydra", name).write_text(text)


def record_decision(run_dir: str | Path, decision: str) -> None:
    if rank_zero_only.rank == 0:
        Path(run_dir, DECISION_FILE).write_text(decision + "\n")


def count_decisions(sweep_dir: str | Path, since: float) -> dict[str, int]:
    """How many jobs of the sweep started at `since` (epoch seconds) were skipped, resumed and started, at any
    depth of `hydra.sweep.subdir` (`${data.split}/${setting}-${seed}` puts them two folders down)."""
    counts = dict.fromkeys(DECISIONS, 0)
    for path in Path(sweep_dir).rglob(DECISION_FILE):
        decision = path.read_text().strip()
        if decision in counts and path.stat().st_mtime >= since:
            counts[decision] += 1
    return counts


def decisions_line(counts: dict[str, int]) -> str:
    return f"sweep jobs: {counts['skipped']} skipped, {counts['resumed']} resumed, {counts['started']} started"


_OPEN: list = []  # the (callback, config) of the multirun under way, until its end is reported


def end_failed_sweep() -> None:
    """Hydra skips `on_multirun_end` when a job failed (its sweeper re-raises the first failure once every job has
    run), so the report line and the decisions line are printed here, before that failure's own line."""
    if _OPEN:
        callback, config = _OPEN.pop()
        callback.on_multirun_end(config)


def forget_sweep() -> None:
    _OPEN.clear()


class Sweep(SweepReport):
    """The sweep report and the decisions line, from rank 0 only: each extra rank of a DDP job that Lightning
    starts on this machine re-runs the whole `-m` command (its Hydra relaunch) in step with rank 0."""

    def __init__(self, report_interval_s: float = 30.0):
        self.report_interval_s = report_interval_s
        self._reported_at = time.monotonic()
        self._started_at = time.time()

    def on_multirun_start(self, config: DictConfig, **kwargs: Any) -> None:
        self._started_at = time.time() - 1.0  # file mtimes may be coarser than time.time()
        if rank_zero_only.rank == 0:
            super().on_multirun_start(config, **kwargs)

            forget_notices(config.hydra.sweep.dir)
            remember_finished(config.hydra.sweep.dir)  # before Hydra writes each job's new config over its old one
        _OPEN[:] = [(self, config)]

    def on_job_end(self, config: DictConfig, job_return: JobReturn, **kwargs: Any) -> None:
        failed = job_return.status == JobStatus.FAILED
        due = failed or time.monotonic() - self._reported_at >= self.report_interval_s
        if due and rank_zero_only.rank == 0:
            super().on_job_end(config, job_return, **kwargs)
            self._reported_at = time.monotonic()

    def on_multirun_end(self, config: DictConfig, **kwargs: Any) -> None:
        _OPEN.clear()
        if rank_zero_only.rank == 0:

            super().on_multirun_end(config, **kwargs)
            for line in notices_after(config.hydra.sweep.dir):  # those of jobs that ran in other processes
                print(line)
            print(decisions_line(count_decisions(config.hydra.sweep.dir, self._started_at)))
