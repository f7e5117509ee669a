"""Build the Lightning loggers from the `logger` group; W&B stays offline unless asked for online.

An online W&B run whose server cannot be reached (a 5 s connection probe), or whose start fails or takes
longer than `logger.wandb.init_timeout_s`, logs offline instead, with one warning line: the run goes on,
`make wandb-sync` uploads it later. The command line W&B records has secret-looking values masked.
"""

from __future__ import annotations

import os
import re
import socket
import sys
import threading
from contextlib import contextmanager
from urllib.parse import urlparse

from hydra.utils import instantiate
from lightning.fabric.utilities.rank_zero import rank_zero_only
from omegaconf import DictConfig, OmegaConf

SECRET_MARKERS = ("api_key", "apikey", "token", "secret", "password")  # a quick screen; keys are matched by _SECRET_KEY
# a marker not followed by a letter: `hf_token`, `WANDB_API_KEY`, `authToken`, not `tokenizer`, `n_tokens`, `secretary`
_KEY = "(?:" + "|".join(SECRET_MARKERS) + ")(?![a-z])"
_SECRET_KEY = re.compile(_KEY, re.IGNORECASE)
# `key=value` / `key: value` inside a string (an override, a command line, an error message) whose key is secret-looking
_SECRET_ASSIGNMENT = re.compile(r"([\w.+~/-]*" + _KEY + r"[\w.-]*['\"]?\s*[=:]\s*['\"]?)([^,\s'\"\]}]+)", re.IGNORECASE)


def build_loggers(logger_cfg: DictConfig | None) -> list:
    if not logger_cfg:
        return []
    loggers = []
    for name, cfg in logger_cfg.items():
        if cfg is None or "_target_" not in cfg:
            continue
        loggers.append(start_wandb(cfg) if name == "wandb" else instantiate(cfg))
    return loggers


WANDB_PROBE_S = 5.0
DEFAULT_WANDB_URL = "https://api.wandb.ai"


def start_wandb(cfg: DictConfig):
    """The WandbLogger with its run started now (on rank 0; other ranks log nothing), online only when the
    server answers: else offline with a one-line warning."""
    import wandb

    cfg = _wandb_mode(cfg)
    settings = wandb.Settings(init_timeout=float(cfg.pop("init_timeout_s", 15)))
    if cfg.mode == "online" and rank_zero_only.rank == 0:
        url = os.environ.get("WANDB_BASE_URL") or DEFAULT_WANDB_URL
        if not _reachable(url, WANDB_PROBE_S):
            cfg.mode = _offline_instead(f"no connection to {url} within {WANDB_PROBE_S:.0f} s")
    logger = instantiate(cfg, settings=settings)
    try:
        _start(logger)
    except wandb.errors.Error as err:  # a server that answers but will not start the run (timeout, no key, ...)
        if cfg.mode != "online":
            raise
        wandb.finish()
        cfg.mode = _offline_instead(one_line_of(err))
        logger = instantiate(cfg, settings=settings)
        _start(logger)
    return logger


def _start(logger) -> None:
    with masked_argv():  # W&B records the command line (wandb-metadata.json "args") when the run starts
        logger.experiment  # noqa: B018 — starts the run (rank 0)


def _offline_instead(reason: str) -> str:
    print(f"warning: W&B online is unavailable ({mask_text(reason)}); logging offline instead, upload later with "
          "`make wandb-sync`", file=sys.stderr)
    return "offline"


def _reachable(url: str, timeout_s: float) -> bool:
    """A TCP connection to the server opens within `timeout_s` (name lookup included, which a socket timeout
    does not bound: the probe runs in a thread that is abandoned if it takes longer)."""
    parsed = urlparse(url)
    port = parsed.port or (443 if parsed.scheme == "https" else 80)
    result: list[bool] = []

    def probe() -> None:
        try:
            socket.create_connection((parsed.hostname, port), timeout=timeout_s).close()
            result.append(True)
        except OSError:
            result.append(False)

    thread = threading.Thread(target=probe, daemon=True)
    thread.start()
    thread.join(timeout_s)
    return bool(result and result[0])


def one_line_of(err: BaseException) -> str:
    text = str(err).strip()
    return text.splitlines()[0] if text else type(err).__name__


@contextmanager
def masked_argv():
    """`sys.argv` with secret assignments masked (`+my_api_token=***`) while a logger records it."""
    saved = list(sys.argv)
    sys.argv[:] = [mask_text(arg) for arg in saved]
    try:
        yield
    finally:
        sys.argv[:] = saved


def _wandb_mode(cfg: DictConfig) -> DictConfig:
    """Offline unless `logger.wandb.mode=online` or WANDB_MODE says otherwise."""
    cfg = cfg.copy()
    OmegaConf.set_struct(cfg, False)  # a copy this module edits (mode, init_timeout_s)
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
        return {k: "***" if _SECRET_KEY.search(str(k)) else redact(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [redact(v) for v in value]
    return mask_text(value) if isinstance(value, str) else value


def log_config(loggers: list, cfg: DictConfig, resolved: dict | None = None) -> None:
    """Send the resolved, redacted config to every logger as hyper-parameters (no logger: nothing resolved);
    `resolved`: `cfg` already resolved to a container (not resolved again)."""
    if not loggers:
        return
    resolved = redact(OmegaConf.to_container(cfg, resolve=True) if resolved is None else resolved)
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


def wandb_run_started() -> bool:
    """Whether this process has a live W&B run (`wandb.run`), without starting one as `logger.experiment` would."""
    import wandb

    return wandb.run is not None


def finish_loggers(loggers: list) -> None:
    """Close W&B runs now, so an offline run file is complete when the command returns."""
    from lightning.pytorch.loggers import WandbLogger

    for logger in loggers:
        if isinstance(logger, WandbLogger) and wandb_run_started():
            logger.experiment.finish()
