"""`logger=wandb` runs offline by default: the run folder holds the metrics, config and tags, never the key."""

from __future__ import annotations

import json
from pathlib import Path

import wandb
from omegaconf import OmegaConf

from reprolab.run.loggers import summarize_best
from tests.core.cli import run_cli, small_run_args
from tests.core.wandb_records import final_summary, history, logged_keys, read_records

FAKE_KEY = "sekrit" + "0" * 34


def test_wandb_offline_run_holds_metrics_and_no_api_key(tmp_path, cifar_folder):
    run = tmp_path / "run"
    env = {"WANDB_API_KEY": FAKE_KEY, "WANDB_MODE": None, "WANDB_DIR": str(tmp_path / "wandb-dir")}
    result = run_cli("reprolab-train", *small_run_args(run, cifar_folder, "debug=limit", "logger=wandb"), env=env)
    assert result.returncode == 0, result.stderr[-3000:]
    output = result.stdout + result.stderr  # off a terminal: plain text (click strips W&B's colours), no noise
    # W&B >= 0.19 warns once that Lightning's `anonymous` argument has no effect: Lightning always passes it, and no
    # public API leaves it out, so that one line stays
    assert "wandb: Tracking run with wandb" in output and "\x1b" not in output
    [offline] = list((run / "wandb").glob("offline-run-*/run-*.wandb"))
    records = read_records(offline)
    assert {"train/loss_step", "val/acc", "test/acc", "test/loss"} <= logged_keys(records, "history")
    assert {"test/acc", "val/acc"} <= logged_keys(records, "summary")
    assert {"data", "model", "optimizer", "device", "seed", "tags"} <= logged_keys(records, "config")
    [run_record] = [r.run for r in records if r.WhichOneof("record_type") == "run"]
    assert {"cifar10", "small_sgd_cpu", "seed0"} <= set(run_record.tags)
    for path in Path(tmp_path).rglob("*"):
        if path.is_file():
            assert FAKE_KEY.encode() not in path.read_bytes(), f"API key leaked into {path}"
    best = json.loads((run / "metrics.json").read_text())["best/val/acc"]
    assert final_summary(records)["val/acc"] == {"max": best} == {"max": history(offline)["val/acc"].max()}


def test_summary_holds_the_monitors_best_not_its_last(tmp_path, monkeypatch):
    from lightning.pytorch.loggers import WandbLogger

    monkeypatch.setenv("WANDB_DIR", str(tmp_path))
    monkeypatch.setenv("WANDB_SILENT", "true")
    logger = WandbLogger(project="reprolab-test", save_dir=str(tmp_path), mode="offline")
    summarize_best([logger], OmegaConf.create({"metric": "val/loss", "mode": "min"}))
    for step, (loss, acc) in enumerate([(0.5, 0.1), (0.2, 0.9), (0.7, 0.3)]):
        logger.log_metrics({"val/loss": loss, "val/acc": acc}, step=step)
    logger.experiment.finish()
    wandb.teardown()  # waits for the service to write the run file (finish alone can return before)
    [offline] = list(tmp_path.glob("wandb/offline-run-*/run-*.wandb"))
    summary = final_summary(read_records(offline))
    assert summary["val/loss"] == {"min": 0.2} and summary["val/acc"] == 0.3  # the monitor's best; others their last
