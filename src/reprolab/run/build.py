"""The one place a run is built, for `reprolab-train` and `reprolab-eval` alike: device check and settings
(matmul precision, cudnn), seed, then datamodule, task and trainer from the config."""

from __future__ import annotations

import lightning as L
from hydra.errors import InstantiationException
from hydra.utils import instantiate
from omegaconf import DictConfig

from reprolab.cli.errors import from_instantiation
from reprolab.run.device import apply_device_settings, check_device
from reprolab.run.job_logging import route_library_logs, silence_known_noise
from reprolab.run.loggers import summarize_best
from reprolab.run.trainer import build_trainer


def build_task(cfg: DictConfig) -> L.LightningModule:
    model = instantiate(cfg.model)
    optimizer = instantiate(cfg.optimizer)
    scheduler = instantiate(cfg.scheduler) if cfg.get("scheduler") else None
    task = instantiate(cfg.task, model=model, optimizer=optimizer, scheduler=scheduler)
    if cfg.device.get("compile"):
        task.model.compile()  # in place: checkpoint keys stay those of the plain model
    return task


def build_run(cfg: DictConfig, resolved: dict | None = None) -> tuple[L.LightningDataModule, L.LightningModule, L.Trainer]:
    """Datamodule, task and trainer of `cfg`; a constructor that rejects a config value raises a one-line ConfigError.
    `resolved`: `cfg` already resolved to a container, for the loggers' hyper-parameters."""
    check_device(cfg.device)
    route_library_logs()
    silence_known_noise()
    apply_device_settings(cfg.device)
    L.seed_everything(cfg.seed, workers=True)
    try:
        datamodule = instantiate(cfg.data)
        task = build_task(cfg)
        trainer = build_trainer(cfg, resolved)
    except InstantiationException as err:
        converted = from_instantiation(err)
        if converted is err:
            raise
        raise converted from err
    summarize_best(trainer.loggers, cfg.get("monitor"))
    return datamodule, task, trainer
