"""A dashboard spec (see `reprolab.dashboards.spec`) → a `wandb_workspaces` Workspace: one run set
filtered to the paper and grouped by the spec's config keys, one section per spec section."""

from __future__ import annotations

from typing import Any

import wandb_workspaces.reports.v2 as wr
import wandb_workspaces.workspaces as ws
from wandb_workspaces import expr

from reprolab.dashboards.spec import CONFIG_PREFIX, METRIC_FIELDS

PANEL_CLASSES = {"line": wr.LinePlot, "bar": wr.BarPlot, "scalar": wr.ScalarChart, "scatter": wr.ScatterPlot}


def build_workspace(spec: dict[str, Any], entity: str, project: str) -> ws.Workspace:
    runs = spec.get("runs", {})
    return ws.Workspace(
        entity=entity,
        project=project,
        name=spec["title"],
        sections=[
            ws.Section(name=s["name"], panels=[build_panel(p) for p in s.get("panels", [])], is_open=True)
            for s in spec["sections"]
        ],
        runset_settings=ws.RunsetSettings(
            filters=[expr.Config(key) == value for key, value in runs.get("filters", {}).items()],
            groupby=[expr.Config(key) for key in runs.get("groupby", [])],
        ),
    )


def build_panel(panel: dict[str, Any]):
    fields = {k: v for k, v in panel.items() if k != "type"}
    for name in METRIC_FIELDS[panel["type"]]:
        if name in fields:
            fields[name] = _metric(fields[name])
    return PANEL_CLASSES[panel["type"]](**fields)


def _metric(value):
    if isinstance(value, list):
        return [_metric(v) for v in value]
    text = str(value)
    return wr.Config(text[len(CONFIG_PREFIX) :]) if text.startswith(CONFIG_PREFIX) else text
