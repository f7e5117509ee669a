"""What a run leaves in its folder besides checkpoints and logs: `metrics.json` or `error.txt`."""

from __future__ import annotations

import json
import math
from pathlib import Path

import torch

METRICS_FILE = "metrics.json"
ERROR_FILE = "error.txt"


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
    tmp.write_text(json.dumps(clean, indent=2, sort_keys=True))
    tmp.replace(path)
    return path


def write_error(output_dir: str | Path, message: str) -> None:
    path = Path(output_dir) / ERROR_FILE
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(message + "\n")
