"""Paper-specific derived metrics (Δm%, steps saved, RMSE per scale) plug into `reprolab-table`
without editing it.

A plugin is a function `derive(runs: list[Run]) -> None` that adds entries to `run.metrics` of
finished runs (it may read any run's config and metrics, e.g. a baseline group's mean for Δm%).
The derived metrics are then aggregated over seeds like any other. Two ways in:

- explicit: `reprolab-table <runs> --plugin experiments.<paper>.tables:derive_metrics`;
- by convention: for every `paper` among the runs, `experiments.<paper>.tables.derive_metrics`
  is used when that module exists (turn off with `--no-paper-plugins`).

Modules are imported by name, as Hydra imports a `_target_`: the shared tool imports no paper.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence

from reprolab.results.runs import Run

Plugin = Callable[[list[Run]], None]
PAPER_PLUGIN = "experiments.{paper}.tables:derive_metrics"


def load_plugin(spec: str) -> Plugin:
    """`package.module:function` → the function; a clear error when either part is missing."""
    module_name, sep, attr = spec.partition(":")
    if not sep or not module_name or not attr:
        raise ValueError(f"plugin '{spec}' must look like 'package.module:function'")
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as err:
        raise ValueError(f"plugin '{spec}': cannot import '{module_name}' ({err})") from err
    try:
        fn = getattr(module, attr)
    except AttributeError:
        raise ValueError(f"plugin module '{module_name}' has no function '{attr}'") from None
    if not callable(fn):
        raise ValueError(f"plugin '{spec}' is not callable")
    return fn


def paper_plugins(runs: Sequence[Run]) -> list[str]:
    """The conventional plugin spec of every paper among `runs` whose `tables` module exists."""
    specs = []
    for paper in sorted({str(r.get("paper")) for r in runs if r.get("paper")}):
        spec = PAPER_PLUGIN.format(paper=paper)
        module_name = spec.partition(":")[0]
        try:
            importlib.import_module(module_name)
        except ModuleNotFoundError as err:
            if err.name and module_name.startswith(err.name):
                continue  # this paper has no tables module (or is not installed): nothing to add
            raise
        specs.append(spec)
    return specs


def apply_plugins(runs: list[Run], specs: Sequence[str]) -> list[str]:
    """Run each plugin on `runs`; returns the metric names the plugins added, in first-seen order."""
    before = {id(r): set(r.metrics) for r in runs}
    for spec in specs:
        load_plugin(spec)(runs)
    added: list[str] = []
    for run in runs:
        added += [k for k in run.metrics if k not in before[id(run)] and k not in added]
    return added
