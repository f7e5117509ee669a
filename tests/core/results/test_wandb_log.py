"""Curves from an offline W&B run file (paper-scale presets log to W&B only)."""

from __future__ import annotations

import pytest

from reprolab.results.curves import group_curves
from reprolab.results.runs import find_runs
from reprolab.results.wandb_log import history, iter_records, run_history_files
from tests.core.results.run_folders import make_run

pytestmark = pytest.mark.slow  # wandb.init starts its service process: ~10 s on a loaded machine


@pytest.fixture(scope="module")
def wandb_run(tmp_path_factory):
    """A real offline run: 1,500 history rows and a 70 KB config, so records span 32 KiB blocks."""
    wandb = pytest.importorskip("wandb")
    folder = tmp_path_factory.mktemp("wandb_run")
    make_run(folder, config={"seed": 0}, metrics={"test/acc": 1.0}, overrides=["seed=0"])
    run = wandb.init(mode="offline", dir=str(folder), project="reprolab-test", config={"blob": "x" * 70_000})
    for step in range(1500):
        run.log({"val/acc": step / 1500, "trainer/global_step": step})
    run.finish()
    return folder


def test_history_reads_every_logged_row(wandb_run):
    (path,) = run_history_files(wandb_run)
    frame = history(path)
    assert len(frame) == 1500
    assert frame["step"].tolist() == list(range(1500))
    assert frame["val/acc"].iloc[-1] == pytest.approx(1499 / 1500)
    (run,) = [r for r in iter_records(path) if r.WhichOneof("record_type") == "run"]
    assert any("x" * 70_000 in item.value_json for item in run.run.config.update)  # a record split over blocks


def test_curves_fall_back_to_wandb_history(wandb_run):
    curves = group_curves(find_runs([wandb_run]), [], "val/acc")
    assert curves[()].loc[750, "mean"] == pytest.approx(0.5) and curves[()].loc[750, "n"] == 1
