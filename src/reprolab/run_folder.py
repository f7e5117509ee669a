"""What a run leaves in its folder besides checkpoints and logs: `metrics.json` or `error.txt`."""

from __future__ import annotations

import fcntl
import json
import math
import os
from pathlib import Path

import torch
from omegaconf import OmegaConf

from reprolab.errors import RunFolderBusyError
from reprolab.loggers import mask_text, redact

METRICS_FILE = "metrics.json"
ERROR_FILE = "error.txt"
LOCK_FILE = ".lock"


def as_floats(metrics: dict) -> dict[str, float]:
    out = {}
    for key, value in metrics.items():
        if isinstance(value, torch.Tensor) and value.numel() == 1:
            value = value.item()
        if isinstance(value, int | float) and not isinstance(value, bool):
            out[key] = float(value)
    return out


def merge_results(results: list[dict]) -> dict:
    """One dict from `trainer.test`'s list (one per test loader; Lightning suffixes keys by loader index)."""
    return {key: value for result in results for key, value in result.items()}


def write_metrics(output_dir: str | Path, metrics: dict) -> Path:
    """Write atomically, so a crash mid-write never leaves a half file where results were."""
    path = Path(output_dir) / METRICS_FILE
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".json.tmp")
    clean = {k: (None if isinstance(v, float) and not math.isfinite(v) else v) for k, v in metrics.items()}
    clean = redact(clean)
    tmp.write_text(json.dumps(clean, indent=2, sort_keys=True))
    tmp.replace(path)
    return path


def write_error(output_dir: str | Path, message: str) -> None:
    path = Path(output_dir) / ERROR_FILE
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(mask_text(message) + "\n")


def lock_run_folder(output_dir: str | Path):
    """Hold an exclusive lock on `<run>/.lock` (released when the returned file closes or the process ends);
    a folder another live run holds is refused."""
    path = Path(output_dir) / LOCK_FILE
    path.parent.mkdir(parents=True, exist_ok=True)
    handle = open(path, "a+")  # noqa: SIM115 — held open for the whole run
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        handle.seek(0)
        owner = handle.read().strip() or "?"
        handle.close()
        raise RunFolderBusyError(f"run folder '{output_dir}' is in use by another run (pid {owner}); "
                                 "wait for it to finish or choose another hydra.run.dir") from None
    handle.seek(0)
    handle.truncate()
    handle.write(f"{os.getpid()}\n")
    handle.flush()
    return handle


def mask_saved_config(config_dir: str | Path) -> None:
    """Rewrite Hydra's saved `config.yaml`, `hydra.yaml`, `overrides.yaml` with secret-looking values masked."""
    for name in ("config.yaml", "hydra.yaml", "overrides.yaml"):
        path = Path(config_dir) / name
        if not path.is_file():
            continue
        saved = OmegaConf.to_container(OmegaConf.load(path), resolve=False)
        masked = redact(saved)
        if masked != saved:
            tmp = path.with_suffix(".yaml.tmp")
            OmegaConf.save(OmegaConf.create(masked), tmp)
            tmp.replace(path)
