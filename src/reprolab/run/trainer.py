"""Build the Lightning Trainer, its callbacks and loggers from the composed config."""

from __future__ import annotations

import sys

import lightning as L
from hydra.utils import instantiate
from lightning.pytorch.callbacks import Checkpoint, LearningRateMonitor
from omegaconf import DictConfig

from reprolab.callbacks.checkpoint import write_atomically
from reprolab.run.device import check_world_size, world_size
from reprolab.run.loggers import build_loggers, log_config


def build_callbacks(callbacks_cfg: DictConfig | None, with_loggers: bool, processes: int = 1) -> list[L.Callback]:
    """The configured callbacks, less those with nothing to do here: Lightning calls every hook of every callback
    at every step (~15 µs a callback on CPU), so a `multi_process_only` one is left out of a one-process run."""
    callbacks = []
    for cfg in (callbacks_cfg or {}).values():
        if cfg is None or "_target_" not in cfg:
            continue
        callback = instantiate(cfg)
        if isinstance(callback, LearningRateMonitor) and not with_loggers:
            continue  # it needs a logger to write to
        if getattr(callback, "multi_process_only", False) and processes < 2:
            continue
        callbacks.append(callback)
    return callbacks


def progress_bar(setting) -> bool:
    """`auto`: a progress bar only on a terminal (redrawing one into a log file costs ~3% of a small run)."""
    return sys.stdout.isatty() if str(setting) == "auto" else bool(setting)


def build_trainer(cfg: DictConfig, resolved: dict | None = None) -> L.Trainer:
    check_world_size(cfg)  # before a logger starts or a process is launched
    loggers = build_loggers(cfg.get("logger"))
    log_config(loggers, cfg, resolved)
    callbacks = build_callbacks(cfg.get("callbacks"), with_loggers=bool(loggers), processes=world_size(cfg.device))
    enabled = checkpointing(cfg.trainer, callbacks)
    if not enabled:  # `trainer.enable_checkpointing=false` leaves the checkpoint callbacks out (Lightning refuses both)
        callbacks = [c for c in callbacks if not isinstance(c, Checkpoint)]
    trainer = instantiate(cfg.trainer, callbacks=callbacks, logger=loggers or False, enable_checkpointing=enabled,
                          enable_progress_bar=progress_bar(cfg.trainer.get("enable_progress_bar", True)))
    write_atomically(trainer)
    return trainer


def checkpointing(trainer_cfg: DictConfig, callbacks: list[L.Callback]) -> bool:
    """No checkpoints when `callbacks.model_checkpoint` and `callbacks.last_checkpoint` are null: Lightning would
    otherwise add its own default ModelCheckpoint, writing `epoch=…ckpt` at every validation."""
    wanted = trainer_cfg.get("enable_checkpointing", True)
    return bool(wanted) and any(isinstance(c, Checkpoint) for c in callbacks)
