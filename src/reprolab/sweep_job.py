"""What a `-m` sweep job does before it trains: skip a run this config already finished, resume one it left
unfinished, or start (sweep.decide_job); and the number it hands back to the sweeper."""

from __future__ import annotations

import json

from hydra.core.hydra_config import HydraConfig
from hydra.types import RunMode
from lightning.fabric.utilities.rank_zero import rank_zero_only
from omegaconf import DictConfig

from reprolab.finished_records import restore_record
from reprolab.rerun_notice import rerun_notice
from reprolab.sweep import decide_job, record_decision


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
    resume = cfg.get("resume", True)
    decision, path = decide_job(cfg, cfg.paths.output_dir, resume=resume, resolved=resolved)
    record_decision(cfg.paths.output_dir, decision)
    if resume and decision == "started":  # a finished run set aside only for keys added since: say how to keep it
        notice = rerun_notice(cfg, cfg.paths.output_dir, HydraConfig.get().sweep.dir, resolved)
        if notice:
            print(notice)
    if decision == "skipped":
        if rank_zero_only.rank == 0:
            restore_record(cfg.paths.output_dir)  # Hydra wrote this job's .hydra/ over the finished run's record
        print(f"skipped: {path} holds this config's metrics")
        return json.loads(path.read_text())
    if decision == "resumed" and not cfg.get("ckpt_path"):
        cfg.ckpt_path = str(path)
        print(f"resuming from {path}")
    return None
