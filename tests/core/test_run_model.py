"""`reprolab.run.finished_model`: a finished run's network comes back with the weights it tested; a missing run says what to run."""

from __future__ import annotations

import json

import pytest
import torch
from omegaconf import OmegaConf

from reprolab.cli.errors import DatasetNotFoundError
from reprolab.run.finished_model import load_run_model, model_state


def _finished_run(tmp_path, tested: float, last: float):
    """A run folder as the trainer leaves it: config, a best checkpoint named in metrics.json, and a different last."""
    run = tmp_path / "run"
    (run / ".hydra").mkdir(parents=True)
    (run / "checkpoints").mkdir()
    OmegaConf.save({"model": {"_target_": "torch.nn.Linear", "in_features": 2, "out_features": 1}}, run / ".hydra/config.yaml")
    for name, value in (("best-epoch=3.ckpt", tested), ("last.ckpt", last)):
        state = {"model.weight": torch.full((1, 2), value), "model.bias": torch.zeros(1), "criterion.scale": torch.ones(1)}
        torch.save({"state_dict": state}, run / "checkpoints" / name)
    (run / "metrics.json").write_text(json.dumps({"best_ckpt": "/elsewhere/checkpoints/best-epoch=3.ckpt"}))
    return run


def test_the_tested_checkpoint_is_loaded_into_the_rebuilt_network_in_eval_mode(tmp_path):
    run = _finished_run(tmp_path, tested=2.0, last=5.0)
    model, cfg = load_run_model(run)
    assert isinstance(model, torch.nn.Linear) and not model.training and cfg.model.in_features == 2
    assert torch.equal(model.weight, torch.full((1, 2), 2.0))  # best (looked up in the run's own folder), not last
    assert set(model_state(run / "checkpoints/last.ckpt")) == {"weight", "bias"}  # the task's other weights left out


def test_a_run_without_config_or_checkpoint_says_what_makes_it(tmp_path):
    run = _finished_run(tmp_path, tested=1.0, last=1.0)
    for path in run.glob("checkpoints/*.ckpt"):
        path.unlink()
    with pytest.raises(DatasetNotFoundError, match="has no checkpoint at .*; make claim-x first"):
        load_run_model(run, "make claim-x first")
    (run / ".hydra/config.yaml").unlink()
    with pytest.raises(DatasetNotFoundError, match=r"has no \.hydra/config\.yaml; re-run it first"):
        load_run_model(run)
