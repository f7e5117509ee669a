"""One-batch training run of every koopman preset through the trainer, then the readout on the finished run."""

from __future__ import annotations

import json

import pytest
from omegaconf import OmegaConf

from experiments.koopman import readout
from reprolab.cli.train import run
from reprolab.config.compose import CONF_DIR, compose

PRESETS = sorted(p.stem for p in (CONF_DIR / "experiment" / "koopman").glob("*.yaml"))
SMALL = ["data.n_trajectories=5", "data.steps=30", "data.val_trajectories=1", "data.test_trajectories=1",
         "data.window=3", "data.batch_size=16", "readout.n_points=100"]


@pytest.mark.parametrize("name", PRESETS)
def test_preset_one_batch_then_readout(name, tmp_path):
    pytest.importorskip("pysindy", reason="the readout needs pysindy (pip install -e '.[koopman]')")
    cfg = compose([f"experiment=koopman/{name}", "device=cpu", "logger=none", "debug=limit", "trainer.max_epochs=1",
                   "trainer.limit_train_batches=1", "print_config=false",
                   *SMALL], output_dir=tmp_path)
    metrics = run(cfg)
    assert metrics["paper"] == "koopman" and "test/pred_rel" in metrics
    (tmp_path / ".hydra").mkdir()
    OmegaConf.save(cfg, tmp_path / ".hydra" / "config.yaml")
    readout.main([str(tmp_path)])
    written = json.loads((tmp_path / "metrics.json").read_text())
    assert "koopman/pred_rel" in written and "edmd/pred_rel" in written
    if cfg.task._target_.endswith("ClosedFormTask"):      # SINDy, EDMD: refitted, no latents to read
        assert ("readout/jaccard" in written) == cfg.model._target_.endswith("SINDy")
        if cfg.model.get("relift") is False:               # the arm is the readout's own EDMD, scored the same way
            assert written["koopman/pred_rel"] == pytest.approx(written["edmd/pred_rel"], rel=1e-6)
        return
    assert written["readout/heldout_r2"] <= 1.0
    assert ("readout/jaccard" in written) == bool(cfg.readout.target)
    assert ("readout/inner_spearman" in written) == bool(cfg.readout.get("inner_target"))


def test_readout_refuses_an_empty_folder(tmp_path):
    with pytest.raises(SystemExit, match="no finished koopman runs"):
        readout.main([str(tmp_path)])
