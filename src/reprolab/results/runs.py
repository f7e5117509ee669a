"""Find run folders on disk and read what each left behind: metrics, config, overrides, error.

A run folder is any directory holding `.hydra/config.yaml` (what `reprolab-train` writes, single
run or one job of a sweep), except under a folder a rerun sweep set aside (`replaced-*`, reprolab.sweeps.callback): that one
keeps an earlier config's run with its own `.hydra/` record, reached only by naming it. Its status follows from the files `reprolab.run.folder` writes:
`metrics.json` → finished, `error.txt` → failed, neither → incomplete (still running, or killed).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from omegaconf import DictConfig, ListConfig, OmegaConf

METRICS_FILE = "metrics.json"
ERROR_FILE = "error.txt"
CONFIG_FILE = Path(".hydra") / "config.yaml"
HYDRA_FILE = Path(".hydra") / "hydra.yaml"
OVERRIDES_FILE = Path(".hydra") / "overrides.yaml"

FINISHED, FAILED, INCOMPLETE = "finished", "failed", "incomplete"
SET_ASIDE_PREFIX = "replaced-"  # the name prefix of what a rerun sweep moved out of a job's way (sweep._move_aside)


def in_set_aside(path: str | Path, root: str | Path) -> bool:
    """Whether `path` lies in a set-aside folder below `root` (`root` itself may be one: then it was named)."""
    return any(part.startswith(SET_ASIDE_PREFIX) for part in Path(path).relative_to(root).parts)


@dataclass
class Run:
    """One run folder. `metrics` is mutable: table plugins add derived metrics to it."""

    path: Path
    status: str
    metrics: dict[str, Any] = field(default_factory=dict)
    config: dict[str, Any] = field(default_factory=dict)  # flattened, dotted keys
    choices: dict[str, Any] = field(default_factory=dict)  # config-group choices, e.g. optimizer: adamw
    overrides: dict[str, str] = field(default_factory=dict)  # command-line overrides of this run
    error: str | None = None

    @property
    def finished(self) -> bool:
        return self.status == FINISHED

    def get(self, key: str, default: Any = None) -> Any:
        """A value by name: group choice, then config key, then metrics.json, then raw override."""
        for source in (self.choices, self.config, self.metrics, self.overrides):
            if key in source:
                return source[key]
        return default


def find_runs(paths: Iterable[str | Path]) -> list[Run]:
    """Every run folder at or under `paths`, sorted by path; a missing path is an error."""
    return [load_run(run_dir) for run_dir in run_dirs(paths)]


def run_dirs(paths: Iterable[str | Path]) -> list[Path]:
    """Every run folder (one holding `.hydra/config.yaml`, none set aside) at or under `paths`, once each, in natural order."""
    found: dict[Path, Path] = {}
    for root in map(Path, paths):
        if not root.exists():
            raise FileNotFoundError(f"no such runs folder: {root}")
        for config in sorted(root.rglob(str(CONFIG_FILE))):
            if not in_set_aside(config, root):
                found.setdefault(config.parent.parent.resolve(), config.parent.parent)
    return sorted(found.values(), key=lambda path: _natural_key(str(path)))


def load_status(run_dir: str | Path) -> Run:
    """A run's status, metrics, overrides and error, without parsing its config (what a sweep report needs)."""
    run_dir = Path(run_dir)
    metrics_path, error_path = run_dir / METRICS_FILE, run_dir / ERROR_FILE
    metrics = _read_json(metrics_path)
    error = error_path.read_text().strip() if error_path.is_file() else None
    if metrics is not None and (error is None or metrics_path.stat().st_mtime >= error_path.stat().st_mtime):
        status, error = FINISHED, None
    elif error is not None:
        status = FAILED
    elif metrics_path.exists():
        status, error = FAILED, f"unreadable {METRICS_FILE}"
    else:
        status = INCOMPLETE
    return Run(path=run_dir, status=status, metrics=metrics or {}, overrides=_read_overrides(run_dir / OVERRIDES_FILE),
               error=error)


def load_run(run_dir: str | Path) -> Run:
    run = load_status(run_dir)
    run.config = flatten(OmegaConf.load(run.path / CONFIG_FILE))
    run.choices = _read_choices(run.path / HYDRA_FILE)
    return run


def flatten(cfg: DictConfig | ListConfig, prefix: str = "") -> dict[str, Any]:
    """Dotted leaf keys → values, resolved where possible; interpolations that need Hydra's
    runtime (`${hydra:...}`) stay as their raw text. Lists become tuples so they can group rows."""
    out: dict[str, Any] = {}
    keys = cfg.keys() if isinstance(cfg, DictConfig) else range(len(cfg))
    raw_values = OmegaConf.to_container(cfg, resolve=False)  # interpolations as their text, nothing resolved
    for key in keys:
        name = f"{prefix}{key}"
        raw = raw_values[key]
        if isinstance(raw, dict):  # a sub-config (an interpolated one is its text; a null one is None)
            out.update(flatten(cfg[key], prefix=f"{name}."))
            continue
        if isinstance(raw, str) and "${hydra:" in raw:  # another run's runtime would answer, if any is live
            out[name] = raw
            continue
        try:
            value = cfg[key]
        except Exception:  # unresolvable here (a missing resolver)
            value = raw
        if isinstance(value, DictConfig | ListConfig):
            value = _freeze(OmegaConf.to_container(value, resolve=False))
        out[name] = value
    return out


def _freeze(value: Any) -> Any:
    if isinstance(value, list):
        return tuple(_freeze(v) for v in value)
    if isinstance(value, dict):
        return tuple(sorted((k, _freeze(v)) for k, v in value.items()))
    return value


def _read_json(path: Path) -> dict | None:
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def _read_choices(path: Path) -> dict[str, Any]:
    if not path.is_file():
        return {}
    choices = OmegaConf.select(OmegaConf.load(path), "hydra.runtime.choices", default=None)
    if choices is None:
        return {}
    return {k: v for k, v in OmegaConf.to_container(choices).items() if not k.startswith("hydra/")}


def _read_overrides(path: Path) -> dict[str, str]:
    if not path.is_file():
        return {}
    out = {}
    for item in OmegaConf.to_container(OmegaConf.load(path)) or []:
        key, _, value = str(item).partition("=")
        out[key.lstrip("+~")] = value
    return out


def _natural_key(text: str) -> list:
    """'run/10' after 'run/9'."""
    return [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", text)]
