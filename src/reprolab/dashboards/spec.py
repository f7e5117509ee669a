"""Dashboard specs as config: `conf/dashboard/<paper>.yaml` says which runs a paper's W&B
workspace shows, how they are grouped, and which panels show its claim. This module reads and
checks a spec; `reprolab.dashboards.workspace` turns it into a wandb-workspaces object."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from omegaconf import OmegaConf

from reprolab.config import CONF_DIR
from reprolab.errors import ConfigError

DASHBOARD_DIR = CONF_DIR / "dashboard"
CONFIG_PREFIX = "config:"
# The panel type → the fields that name metrics (checked against what the task logs).
METRIC_FIELDS = {"line": ("x", "y"), "bar": ("metrics",), "scalar": ("metric",), "scatter": ("x", "y", "z")}
# x axes W&B or Lightning's WandbLogger provide without the task logging them.
BUILTIN_AXES = {"Step", "_step", "Wall", "_runtime", "Relative Time (Wall)", "Relative Time (Process)",
                "trainer/global_step", "epoch"}


def available() -> list[str]:
    return sorted(p.stem for p in DASHBOARD_DIR.glob("*.yaml"))


def load_spec(paper: str, path: str | Path | None = None) -> dict[str, Any]:
    """The spec of `paper` (from `path`, else conf/dashboard/<paper>.yaml), checked for shape."""
    path = Path(path) if path else DASHBOARD_DIR / f"{paper}.yaml"
    if not path.is_file():
        raise ConfigError(f"no dashboard spec {path}; available: {', '.join(available()) or 'none'}")
    spec = OmegaConf.to_container(OmegaConf.load(path), resolve=True)
    for key in ("paper", "title", "sections"):
        if key not in spec:
            raise ConfigError(f"{path}: dashboard spec lacks '{key}'")
    for section in spec["sections"]:
        for panel in section.get("panels", []):
            if panel.get("type") not in METRIC_FIELDS:
                raise ConfigError(
                    f"{path}: panel {panel.get('title')!r} has type {panel.get('type')!r}; "
                    f"use one of {', '.join(METRIC_FIELDS)}"
                )
    return spec


def panel_keys(panel: dict[str, Any]) -> list[str]:
    """Every metric or `config:` key a panel names, in field order."""
    keys = []
    for field in METRIC_FIELDS[panel["type"]]:
        value = panel.get(field)
        keys += value if isinstance(value, list) else [value] if value else []
    return [str(k) for k in keys]


def metric_keys(spec: dict[str, Any]) -> set[str]:
    """The logged metrics the spec's panels plot (built-in axes and `config:` keys left out)."""
    keys = {k for s in spec["sections"] for p in s.get("panels", []) for k in panel_keys(p)}
    return {k for k in keys if k not in BUILTIN_AXES and not k.startswith(CONFIG_PREFIX)}


def config_keys(spec: dict[str, Any]) -> set[str]:
    """The config keys the spec filters, groups or plots by."""
    runs = spec.get("runs", {})
    keys = set(runs.get("filters", {})) | set(runs.get("groupby", []))
    panels = [k for s in spec["sections"] for p in s.get("panels", []) for k in panel_keys(p)]
    return keys | {k[len(CONFIG_PREFIX) :] for k in panels if k.startswith(CONFIG_PREFIX)}
