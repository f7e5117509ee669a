"""Dashboard specs as config: `conf/dashboard/<paper>.yaml` says which runs a paper's W&B
workspace shows, how they are grouped, and which panels show its claim. This module reads and
checks a spec; `reprolab.dashboards.workspace` turns it into a wandb-workspaces object."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from omegaconf import OmegaConf

from reprolab.cli.errors import ConfigError
from reprolab.config.compose import CONF_DIR

DASHBOARD_DIR = CONF_DIR / "dashboard"
CONFIG_PREFIX = "config:"
# The panel type → the fields that name metrics (checked against what the task logs).
METRIC_FIELDS = {"line": ("x", "y"), "bar": ("metrics",), "scalar": ("metric",), "scatter": ("x", "y", "z")}
# Fields that name metrics by a regular expression (W&B plots every matching key): the tests check that
# each matches at least one logged key, so a per-task panel fits any benchmark's task names.
REGEX_FIELDS = {"line": ("metric_regex",)}
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
    _check_overrides(path, "check_with", spec.get("check_with"))
    for section in spec["sections"]:
        _check_overrides(path, f"section {section.get('name')!r} check_with", section.get("check_with"))
        for panel in section.get("panels", []):
            if panel.get("type") not in METRIC_FIELDS:
                raise ConfigError(
                    f"{path}: panel {panel.get('title')!r} has type {panel.get('type')!r}; "
                    f"use one of {', '.join(METRIC_FIELDS)}"
                )
            for field in REGEX_FIELDS.get(panel["type"], ()):
                if panel.get(field) is not None:
                    try:
                        re.compile(str(panel[field]))
                    except re.error as err:
                        raise ConfigError(f"{path}: panel {panel.get('title')!r} {field} "
                                          f"{panel[field]!r} is not a regular expression ({err})") from err
    return spec


def _check_overrides(path: Path, where: str, value: Any) -> None:
    if value is not None and not (isinstance(value, list) and all(isinstance(v, str) for v in value)):
        raise ConfigError(f"{path}: {where} must be a list of override strings (e.g. [experiment=<paper>/<preset>]), "
                          f"got {value!r}")


def check_runs(spec: dict[str, Any]) -> list[tuple[list[str], dict[str, Any]]]:
    """(overrides, sub-spec) per distinct `check_with`: a section's own, else the spec's top-level one. The
    sub-spec holds the sections that run checks, so `metric_keys` / `config_keys` apply to it."""
    groups: dict[tuple[str, ...], list[dict[str, Any]]] = {}
    for section in spec["sections"]:
        overrides = section.get("check_with", spec.get("check_with"))
        if overrides is None:
            raise ConfigError(f"dashboard '{spec['paper']}': section {section.get('name')!r} has no check_with "
                              "and the spec has no top-level one")
        groups.setdefault(tuple(overrides), []).append(section)
    return [(list(k), {**spec, "sections": sections}) for k, sections in groups.items()]


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


def metric_regexes(spec: dict[str, Any]) -> set[str]:
    """The regular expressions the spec's panels select logged metrics by."""
    return {str(p[f]) for s in spec["sections"] for p in s.get("panels", [])
            for f in REGEX_FIELDS.get(p["type"], ()) if p.get(f)}


def config_keys(spec: dict[str, Any]) -> set[str]:
    """The config keys the spec filters, groups or plots by."""
    runs = spec.get("runs", {})
    keys = set(runs.get("filters", {})) | set(runs.get("groupby", []))
    panels = [k for s in spec["sections"] for p in s.get("panels", []) for k in panel_keys(p)]
    return keys | {k[len(CONFIG_PREFIX) :] for k in panels if k.startswith(CONFIG_PREFIX)}
