"""Build the Lightning loggers from the `logger` group; W&B stays offline unless asked for online."""

from __future__ import annotations

import os
import re

from hydra.utils import instantiate
from omegaconf import DictConfig, OmegaConf

SECRET_MARKERS = ("api_key", "apikey", "token", "secret", "password")
# `key=value` / `key: value` inside a string (an override, a command line, an error message) whose key is secret-looking
_KEY = "|".join(SECRET_MARKERS)
_SECRET_ASSIGNMENT = re.compile(r"([\w.+~/-]*(?:" + _KEY + r")[\w.-]*['\"]?\s*[=:]\s*['\"]?)([^,\s'\"\]}]+)", re.IGNORECASE)


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


def mask_text(text: str) -> str:
    """`my_api_token=abc123` → `my_api_token=***` wherever such an assignment appears in `text`."""
    return _SECRET_ASSIGNMENT.sub(r"\1***", text)


def redact(value):
    """A copy of a (nested) config with every secret-looking key's value replaced, and secret assignments
    inside strings and lists (overrides, command lines) masked."""
    if isinstance(value, dict):
        return {k: "***" if any(m in str(k).lower() for m in SECRET_MARKERS) else redact(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [redact(v) for v in value]
    return mask_text(value) if isinstance(value, str) else value


def log_config(loggers: list, cfg: DictConfig) -> None:
    """Send the resolved, redacted config to every logger as hyper-parameters."""
    resolved = redact(OmegaConf.to_container(cfg, resolve=True))
    for logger in loggers:
        logger.log_hyperparams(resolved)


def summarize_best(loggers: list, monitor: DictConfig | None) -> None:
    """The W&B run summary of the monitored metric holds its best value (`{"max": …}` / `{"min": …}` by the
    monitor's mode), not the last one logged; Lightning's step axis is kept for it."""
    from lightning.pytorch.loggers import WandbLogger

    if not monitor or not monitor.get("metric"):
        return
    for logger in loggers:
        if isinstance(logger, WandbLogger):
            logger.experiment.define_metric(monitor.metric, summary=str(monitor.get("mode", "min")),
                                            step_metric="trainer/global_step", step_sync=True)


def finish_loggers(loggers: list) -> None:
    """Close W&B runs now, so an offline run file is complete when the command returns."""
    from lightning.pytorch.loggers import WandbLogger

    for logger in loggers:
        if isinstance(logger, WandbLogger) and logger._experiment is not None:
            logger.experiment.finish()
