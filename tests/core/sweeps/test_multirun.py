"""Multiruns through the real entry point and config tree (instant stand-in training): one folder
per run, a table with the right means, failures reported, the Optuna preset, submitit_local."""

from __future__ import annotations

import json
import sqlite3
import statistics

import pytest

from reprolab.cli import table
from reprolab.results import aggregate, find_runs
from tests.core.cli import PYTHONPATH
from tests.core.sweeps.fake_train import fake_test_acc, run_train_cli


def sweep_args(tmp_path, *extra: str) -> list[str]:
    return ["-m", "experiment=cifar10/small_sgd_cpu", f"paths.root_dir={tmp_path}", "print_config=false",
            "hydra/callbacks=sweep_report", f"hydra.sweep.dir={tmp_path / 'sweep'}", *extra]


def test_grid_sweep_gives_four_run_folders_and_a_table_of_seed_means(tmp_path, monkeypatch):
    assert run_train_cli(monkeypatch, *sweep_args(tmp_path, "optimizer.lr=0.01,0.1", "seed=0,1")) == 0
    sweep = tmp_path / "sweep"
    runs = sorted(p.parent.parent.name for p in sweep.glob("*/.hydra/config.yaml"))
    assert runs == ["0", "1", "2", "3"]
    assert all((sweep / r / "metrics.json").is_file() for r in runs)
    report = json.loads((sweep / "sweep_report.json").read_text())
    assert (report["n_finished"], report["n_failed"], report["n_incomplete"]) == (4, 0, 0)

    found = find_runs([sweep])
    rows = aggregate(found, ["optimizer.lr"], ["test/acc"])
    for row, lr in zip(rows, (0.01, 0.1), strict=True):
        expected = [fake_test_acc(lr, s) for s in (0, 1)]
        cell = row.cells["test/acc"]
        assert row.key == (lr,) and cell.n == 2
        assert cell.mean == pytest.approx(statistics.fmean(expected))
        assert cell.std == pytest.approx(statistics.stdev(expected))

    out = tmp_path / "table.md"
    assert table.main([str(sweep), "--out", str(out)]) == 0
    text = out.read_text()
    assert "| optimizer.lr | test/acc | test/loss | n |" in text  # default rows: the swept key, not seed
    assert "| 0.01 | 0.1500 ± 0.0707 |" in text and "| 0.1 | 1.050 ± 0.071 |" in text
    assert "4 finished, 0 not finished" in text
    pngs = sorted(p.name for p in (tmp_path / "figures").glob("*.png"))
    assert len(pngs) == 2 and any("val_acc" in p for p in pngs) and any("train_loss" in p for p in pngs)


def test_failed_runs_inside_a_sweep_are_reported_not_hidden(tmp_path, monkeypatch, capsys):
    code = run_train_cli(monkeypatch, *sweep_args(tmp_path, "seed=0,101,102"))
    assert code != 0  # the sweep says it was not clean ...
    sweep = tmp_path / "sweep"
    report = json.loads((sweep / "sweep_report.json").read_text())  # ... and says which runs failed
    assert report["n_finished"] == 1 and report["n_failed"] == 2
    assert [r["run"] for r in report["finished"]] == ["0"]
    errors = {r["run"]: r["error"] for r in report["failed"]}
    assert errors["1"] == "CorruptDataError: image train/cat/7.jpg is truncated; re-extract the dataset"
    assert errors["2"] == "RuntimeError: CUDA out of memory (fake)"  # no error.txt from train.py: the callback's
    assert "seed=101" in " ".join(report["failed"][0]["overrides"])
    assert (sweep / "0" / "metrics.json").is_file()  # the finished run is kept
    said = capsys.readouterr()  # Hydra skips on_multirun_end after a failed job: the counts are printed anyway
    assert said.out.splitlines()[-2:] == [f"sweep report: 1 finished, 2 failed, 0 incomplete → {sweep / 'sweep_report.json'}",
                                          "sweep jobs: 0 skipped, 0 resumed, 3 started"]
    assert said.err.splitlines()[-1] == "error: image train/cat/7.jpg is truncated; re-extract the dataset"

    out = tmp_path / "table.md"
    table.main([str(sweep), "--out", str(out), "--no-curves"])
    text = out.read_text()
    assert "1 finished, 2 not finished" in text and "| failed |" in text
    assert "RuntimeError: CUDA out of memory (fake)" in text and "CorruptDataError" in text


def test_single_run_writes_no_sweep_report(tmp_path, monkeypatch):
    args = ["experiment=cifar10/small_sgd_cpu", f"paths.root_dir={tmp_path}", "print_config=false",
            f"hydra.run.dir={tmp_path / 'run'}", "seed=102"]
    assert run_train_cli(monkeypatch, *args) != 0
    assert (tmp_path / "run" / "error.txt").read_text() == "RuntimeError: CUDA out of memory (fake)\n"
    assert not (tmp_path / "logs" / "multiruns").exists()


def test_optuna_preset_runs_three_trials_and_resumes_from_its_storage(tmp_path, monkeypatch):
    base = ["experiment=cifar10/small_sgd_cpu", f"paths.root_dir={tmp_path}", "print_config=false",
            "hydra/callbacks=sweep_report", "hparams_search=cifar10_optuna", "hydra.sweeper.n_trials=3"]
    assert run_train_cli(monkeypatch, *base, f"hydra.sweep.dir={tmp_path / 'first'}") == 0
    first = tmp_path / "first"
    assert sorted(p.name for p in first.iterdir() if p.name.isdigit()) == ["0", "1", "2"]
    results = (first / "optimization_results.yaml").read_text()
    assert "best_params" in results and "optimizer.lr" in results
    db = tmp_path / "logs" / "multiruns" / "cifar10-small_sgd_cpu" / "optuna" / "study.db"
    assert trial_states(db) == ["COMPLETE"] * 3
    for run in find_runs([first]):
        assert 0.005 <= run.config["optimizer.lr"] <= 0.5 and 1e-5 <= run.config["optimizer.weight_decay"] <= 1e-3
    best = max(r.metrics["val/acc"] for r in find_runs([first]))
    assert f"best_value: {best}" in results  # maximised, as monitor.mode=max says

    first_metrics = (first / "0" / "metrics.json").read_text()
    assert run_train_cli(monkeypatch, *base, f"hydra.sweep.dir={tmp_path / 'second'}", "hydra.sweeper.n_trials=1") == 0
    assert trial_states(db) == ["COMPLETE"] * 4  # the same study, continued
    assert (first / "0" / "metrics.json").read_text() == first_metrics
    resumed = find_runs([tmp_path / "second"])[0].config["optimizer.lr"]
    assert resumed not in {r.config["optimizer.lr"] for r in find_runs([first])}  # not trial 0 again


def trial_states(db) -> list[str]:
    with sqlite3.connect(db) as con:
        return [row[0] for row in con.execute("select state from trials order by number")]


@pytest.mark.slow  # ~10 s: the job runs in a fresh process that imports torch and Lightning
def test_submitit_local_launcher_runs_one_job(tmp_path, monkeypatch, cifar_folder):
    """The job runs in submitit's own process, which imports `reprolab.cli.train` afresh: the stand-in patched into
    this process does not reach it, so the job trains the preset for real (one fast_dev_run batch each of train,
    val and test; skipped where the preset's data folder is absent)."""
    monkeypatch.setenv("PYTHONPATH", PYTHONPATH)
    code = run_train_cli(monkeypatch, *sweep_args(tmp_path, "hydra/launcher=submitit_local", "seed=3", "debug=fdr",
                                                   "hydra.launcher.timeout_min=5"))
    assert code == 0
    sweep = tmp_path / "sweep"
    metrics = json.loads((sweep / "0" / "metrics.json").read_text())
    assert metrics["seed"] == 3 and 0.0 <= metrics["test/acc"] <= 1.0
    assert metrics["test/acc"] != pytest.approx(fake_test_acc(0.05, 3))  # not the stand-in's number: a real run
    assert any((sweep / ".submitit").iterdir())  # submitit's own job folder: it really went through submitit
    assert json.loads((sweep / "sweep_report.json").read_text())["n_finished"] == 1
