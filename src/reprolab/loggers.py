"""Build the Lightning loggers from the `logger` group; W&B stays offline unless asked for online."""

from __future__ import annotations

import os

from hydra.utils import instantiate
from omegaconf import DictConfig, OmegaConf

SECRET_MARKERS = ("api_key", "apikey", "token", "secret", "password")


def build_loggers(logger_cfg: DictConfig | None) -> list:
    if not logger_cfg:
        return []
    loggers = []
    for name, cfg in logger_cfg.items():
        if cfg is None or "_target_" not in cfg:
            continue
        if name == "wandb":
            cfg = _wandb_mode(cfg)
        loggers.append(instantiate(cfg))
    return loggers


def _wandb_mode(cfg: DictConfig) -> DictConfig:
    """Offline unless `logger.wandb.mode=online` or WANDB_MODE says otherwise."""
    cfg = cfg.copy()
    if cfg.get("mode") is None:
        cfg.mode = os.environ.get("WANDB_MODE") or "offline"
    return cfg


def redact(container: dict) -> dict:
    """A copy of a (nested) config dict with every secret-looking value replaced."""
    out = {}
    for key, value in container.items():
        if any(marker in str(key).lower() for marker in SECRET_MARKERS):
            out[key] = "***"
        elif isinstance(value, dict):
            out[key] = redact(value)
        else:
            out[key] = value
    return out


def log_config(loggers: list, cfg: DictConfig) -> None:
    """Send the resolved, redacted config to every logger as hyper-parameters."""
    resolved = redact(OmegaConf.to_container(cfg, resolve=True))
    for logger in loggers:
        logger.log_hyperparams(resolved)


def finish_loggers(loggers: list) -> None:
    """Close W&B runs now, so an offline run file is complete when the command returns."""
    from lightning.pytorch.loggers import WandbLogger

    for logger in loggers:
        if isinstance(logger, WandbLogger) and logger._experiment is not None:
            logger.experiment.finish()
