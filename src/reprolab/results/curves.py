"""Learning curves from the CSV logger (`<run>/**/metrics.csv`; every W&B preset runs it too), else
TensorBoard event files; averaged over the seeds of a group and drawn as mean ± std bands, one PNG
per metric."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path

import pandas as pd

from reprolab.results.aggregate import group_key
from reprolab.results.runs import Run, in_set_aside

CSV_NAME = "metrics.csv"
TB_GLOB = "events.out.tfevents.*"


def logged_frames(run: Run) -> Iterator[pd.DataFrame]:
    """What the run logged: its CSV logger files, then TensorBoard (not the curves of
    an earlier config's run that a rerun sweep set aside in the folder, `replaced-*/csv/`)."""
    for csv in sorted(run.path.rglob(CSV_NAME)):
        if not in_set_aside(csv, run.path):
            yield pd.read_csv(csv)
    for events in sorted(run.path.rglob(TB_GLOB)):
        if not in_set_aside(events, run.path):
            yield tensorboard_scalars(events)


def tensorboard_scalars(events: Path) -> pd.DataFrame:
    """Every scalar of one TensorBoard event file as a frame with a `step` column, one column per tag."""
    from tensorboard.backend.event_processing.event_accumulator import SCALARS, EventAccumulator

    acc = EventAccumulator(str(events), size_guidance={SCALARS: 0})
    acc.Reload()
    columns = {tag: pd.Series({e.step: e.value for e in acc.Scalars(tag)}) for tag in acc.Tags()[SCALARS]}
    if not columns:
        return pd.DataFrame({"step": []})
    return pd.DataFrame(columns).rename_axis("step").reset_index()


def run_curve(run: Run, metric: str) -> pd.Series | None:
    """`metric` against the optimizer step for one run, or None when the run did not log it.
    A metric logged both per step and per epoch is read from its `<metric>_step` column."""
    for frame in logged_frames(run):
        if metric not in frame.columns and f"{metric}_step" in frame.columns:
            frame = frame.rename(columns={f"{metric}_step": metric})
        if metric not in frame.columns:
            continue
        x = "step" if "step" in frame.columns else None
        points = frame[[c for c in (x, metric) if c]].dropna(subset=[metric])
        index = points[x].astype(int) if x else pd.RangeIndex(len(points))
        series = pd.Series(points[metric].to_numpy(dtype=float), index=index, name=str(run.path))
        return series.groupby(level=0).last()  # one value per step
    return None


def group_curves(runs: Sequence[Run], group_by: Sequence[str], metric: str) -> dict[tuple, pd.DataFrame]:
    """Group key → frame indexed by step with columns mean, std, n (over the group's runs)."""
    by_group: dict[tuple, list[pd.Series]] = {}
    for run in runs:
        curve = run_curve(run, metric) if run.finished else None
        if curve is not None and len(curve):
            by_group.setdefault(group_key(run, group_by), []).append(curve)
    out = {}
    for key, curves in by_group.items():
        table = pd.concat(curves, axis=1).sort_index()
        out[key] = pd.DataFrame({"mean": table.mean(axis=1), "std": table.std(axis=1, ddof=1), "n": table.count(axis=1)})
    return out


def plot_curves(runs: Sequence[Run], group_by: Sequence[str], metric: str, out_png: Path) -> Path | None:
    """Write one PNG with a mean line and ±std band per group; None if no run logged `metric`."""
    curves = group_curves(runs, group_by, metric)
    if not curves:
        return None
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 4), dpi=120)
    for i, (key, frame) in enumerate(sorted(curves.items(), key=lambda item: str(item[0]))):
        label = ", ".join(f"{k}={v}" for k, v in zip(group_by, key, strict=True)) or "all runs"
        label += f" (n={int(frame['n'].max())})"
        style = ("-", "--", ":", "-.")[i // 10 % 4]  # the colour cycle has 10 colours
        (line,) = ax.plot(frame.index, frame["mean"], style, label=label)
        band = frame["std"].fillna(0.0)
        ax.fill_between(frame.index, frame["mean"] - band, frame["mean"] + band, alpha=0.2, color=line.get_color())
    ax.set_xlabel("step")
    ax.set_ylabel(metric)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7)
    fig.tight_layout()
    out_png.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out_png)
    plt.close(fig)
    return out_png
