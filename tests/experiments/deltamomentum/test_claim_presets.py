"""The claim presets through the trainer: one protocol each, the metrics the claims read, the stops."""

from __future__ import annotations

import json

import pytest

from reprolab.cli.train import run
from reprolab.config.compose import compose
from reprolab.config.paths import data_root

SHARED = data_root()   # as paths.data_dir resolves it


def test_lm_claim_protocol_is_stated_once():
    cfg = compose(["experiment=deltamomentum/lm_fineweb_delta"])
    assert (cfg.data.seq_len, cfg.data.batch_size, cfg.trainer.max_steps, cfg.scheduler.warmup_steps) == (64, 16, 240, 16)
    assert cfg.trainer.val_check_interval == 10 and cfg.optimizer.weight_decay == 0.0
    assert cfg.data.path == "fineweb-edu-sample150/texts.jsonl"


def test_regression_run_stops_at_the_target_and_logs_the_excess_risk(tmp_path):
    cfg = compose(["experiment=deltamomentum/regression_delta_sgd", "logger=csv"], output_dir=tmp_path)
    metrics = run(cfg)
    assert metrics["val/relative_excess_risk"] <= 0.01  # stopped by EarlyStopping at the 1 % target
    from experiments.deltamomentum.tables import TO_TARGET, derive_metrics
    from reprolab.results.runs import load_run

    (tmp_path / ".hydra").mkdir()  # what Hydra writes beside a run, for the results reader
    from omegaconf import OmegaConf

    OmegaConf.save(cfg, tmp_path / ".hydra" / "config.yaml")
    done = load_run(tmp_path)
    derive_metrics([done])
    assert 5 < done.metrics[TO_TARGET] < cfg.trainer.max_steps


@pytest.mark.skipif(not (SHARED / "tinyshakespeare" / "input.txt").exists(), reason=f"no {SHARED}/tinyshakespeare (make data-tinyshakespeare)")
def test_mup_preset_writes_the_coordinate_check(tmp_path):
    cfg = compose(["experiment=deltamomentum/mup_coord_check", f"paths.data_dir={SHARED}", "trainer.max_steps=3",
                   "trainer.val_check_interval=3", "callbacks.coord_check.steps=2", "model.d_model=64"],
                  output_dir=tmp_path)
    run(cfg)
    record = json.loads((tmp_path / "coord_check.json").read_text())
    assert record["steps"] == [0, 1, 2]
    assert set(record["activation"]) == {"model", "model.blocks.0", "model.blocks.1"}
    assert record["key_scales"] and all(v > 0 for v in record["key_scales"].values())
