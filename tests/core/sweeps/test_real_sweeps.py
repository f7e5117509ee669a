"""The same sweep checks with the real trainer on the CIFAR folder subset (a few batches per run),
through the console scripts as a user runs them. Slow: each run starts Lightning for real."""

from __future__ import annotations

import json
import re
import statistics

import pytest

from tests.core.cli import run_cli

pytestmark = pytest.mark.slow
TINY = ["trainer.max_epochs=1", "+trainer.limit_train_batches=2", "+trainer.limit_val_batches=1",
        "+trainer.limit_test_batches=1", "trainer.log_every_n_steps=1", "trainer.enable_progress_bar=false",
        "trainer.enable_model_summary=false", "data.batch_size=16", "print_config=false",
        "hydra/callbacks=sweep_report"]


def sweep_cli(tmp_path, cifar_folder, *extra: str):
    return run_cli("reprolab-train", "-m", "experiment=cifar10/small_sgd_cpu", f"data.data_dir={cifar_folder}",
                   f"paths.root_dir={tmp_path}", f"hydra.sweep.dir={tmp_path / 'sweep'}", *TINY, *extra)


def test_real_grid_sweep_and_its_table(tmp_path, cifar_folder):
    result = sweep_cli(tmp_path, cifar_folder, "optimizer.lr=0.01,0.1", "seed=0,1")
    assert result.returncode == 0, result.stderr[-3000:]
    sweep = tmp_path / "sweep"
    metrics = {d.name: json.loads((d / "metrics.json").read_text()) for d in sweep.iterdir() if d.name.isdigit()}
    assert sorted(metrics) == ["0", "1", "2", "3"]
    table = run_cli("reprolab-table", str(sweep), "--out", str(tmp_path / "t.md"), "--metric", "test/acc")
    assert table.returncode == 0, table.stderr[-3000:]
    text = (tmp_path / "t.md").read_text()
    for lr, jobs in (("0.01", ("0", "1")), ("0.1", ("2", "3"))):
        values = [metrics[j]["test/acc"] for j in jobs]
        row = re.search(rf"^\| {re.escape(lr)} \| ([0-9.]+) ± ([0-9.]+) \| 2 \|$", text, re.M)
        assert row, text
        assert float(row.group(1)) == pytest.approx(statistics.fmean(values), abs=1e-4)
        assert float(row.group(2)) == pytest.approx(statistics.stdev(values), abs=1e-4)
    assert (tmp_path / "figures").is_dir() and any((tmp_path / "figures").glob("*val_acc.png"))


def test_real_failed_run_is_reported(tmp_path, cifar_folder):
    missing = tmp_path / "no-such-data"
    result = sweep_cli(tmp_path, cifar_folder, f"data.data_dir={cifar_folder},{missing}")
    assert result.returncode != 0
    report = json.loads((tmp_path / "sweep" / "sweep_report.json").read_text())
    assert report["n_finished"] == 1 and report["n_failed"] == 1
    assert report["failed"][0]["error"].startswith("DatasetNotFoundError:") and str(missing) in report["failed"][0]["error"]


def test_real_optuna_three_trials(tmp_path, cifar_folder):
    result = sweep_cli(tmp_path, cifar_folder, "hparams_search=cifar10_optuna", "hydra.sweeper.n_trials=3")
    assert result.returncode == 0, result.stderr[-3000:]
    sweep = tmp_path / "sweep"
    assert sorted(d.name for d in sweep.iterdir() if d.name.isdigit()) == ["0", "1", "2"]
    assert all((sweep / j / "metrics.json").is_file() for j in ("0", "1", "2"))
    assert "best_value" in (sweep / "optimization_results.yaml").read_text()
    assert (tmp_path / "logs" / "multiruns" / "cifar10-small_sgd_cpu" / "optuna" / "study.db").is_file()
