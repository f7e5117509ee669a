"""What a `-m` sweep job does before it trains: skip a run this config already finished, resume one it left
unfinished, or start (sweep.decide_job); and the number it hands back to the sweeper."""

from __future__ import annotations

import json

from hydra.core.hydra_config import HydraConfig
from hydra.types import RunMode
from lightning.fabric.utilities.rank_zero import rank_zero_only
from omegaconf import DictConfig

from reprolab.sweeps.callback import decide_job, record_decision
from reprolab.sweeps.finished_records import restore_record, saved_record
from reprolab.sweeps.rerun_notice import rerun_notice


def sweep_value(cfg: DictConfig, metrics: dict) -> float | None:
    """The number a sweeper optimises: the best value of `optimized_metric` over the run (its `best/` entry,
    what the tested checkpoint scored), else its last value when no best was tracked."""
    name = cfg.get("optimized_metric")
    if not name:
        return None
    value = metrics.get(f"best/{name}", metrics.get(name))
    return None if value is None else float(value)


def in_multirun() -> bool:
    return HydraConfig.initialized() and HydraConfig.get().mode == RunMode.MULTIRUN


def resume_or_skip(cfg: DictConfig, resolved: dict | None = None) -> dict | None:
    """In a multirun: the recorded metrics of a job already finished with this config (skip it), else
    None after pointing `ckpt_path` at the job's own `last.ckpt` when it has one (resume) or clearing
    what another config left in its folder (start). `resume=false` starts every job fresh."""
    if not in_multirun():
        return None
    resume, run_dir, sweep_dir = cfg.get("resume", True), cfg.paths.output_dir, HydraConfig.get().sweep.dir
    decision, path = decide_job(cfg, run_dir, resume=resume, resolved=resolved,
                                record=saved_record(run_dir, sweep_dir))  # the record a set-aside run keeps
    record_decision(run_dir, decision)
    writer = rank_zero_only.rank == 0
    if writer and resume and decision == "started":  # a finished run set aside only for keys added since: say so
        notice = rerun_notice(cfg, run_dir, sweep_dir, resolved)
        if notice:
            print(notice)
    if decision == "skipped":
        if writer:
            restore_record(run_dir, sweep_dir)  # Hydra wrote this job's .hydra/ over the finished run's record
        print(f"skipped: {path} holds this config's metrics")
        return json.loads(path.read_text())
    if decision == "resumed" and not cfg.get("ckpt_path"):
        cfg.ckpt_path = str(path)
        print(f"resuming from {path}")
    return None
