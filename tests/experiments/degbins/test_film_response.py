"""The FiLM diagnostic on a hand-set FiLM and on a run folder shaped like the trainer's."""

from __future__ import annotations

import pytest
import torch

from experiments.degbins.film_response import film_modulation, report
from experiments.degbins.model import DegBinsNet, FiLM
from tests.core.results.run_folders import make_run


def hand_set_film() -> FiLM:
    """γ = GELU(c), β = (0.5, −0.5): first layer the identity, second copies it into γ and puts β in the bias."""
    film = FiLM(channels=2)
    with torch.no_grad():
        film.net[0].weight.copy_(torch.eye(2))
        film.net[0].bias.zero_()
        film.net[2].weight.copy_(torch.tensor([[1.0, 0.0], [0.0, 1.0], [0.0, 0.0], [0.0, 0.0]]))
        film.net[2].bias.copy_(torch.tensor([0.0, 0.0, 0.5, -0.5]))
    return film


def test_film_modulation_by_hand():
    mod = film_modulation(hand_set_film(), [(16, 0.0), (4, 0.0), (8, 0.05)])
    # c(x16) = (1, 0), c(x4) = (0.5, 0), c(noisy x8, σ 0.05) = (0.75, 1); GELU(x) = x·Φ(x)
    assert mod[(16.0, 0.0)][0].tolist() == pytest.approx([0.841345, 0.0], abs=1e-6)
    assert mod[(4.0, 0.0)][0].tolist() == pytest.approx([0.5 * 0.691462, 0.0], abs=1e-6)
    assert mod[(8.0, 0.05)][0].tolist() == pytest.approx([0.75 * 0.773373, 0.841345], abs=1e-6)
    assert all(b.tolist() == [0.5, -0.5] for _, b in mod.values())


def test_report_reads_film_runs_from_their_config_and_checkpoint(tmp_path):
    model_cfg = {"_target_": "experiments.degbins.model.DegBinsNet", "channels": 2, "dilations": [1], "num_bins": 4,
                 "stages": 1, "degradation_condition": "film"}
    net = DegBinsNet(**{k: v for k, v in model_cfg.items() if k != "_target_"})
    net.film = hand_set_film()
    degradations = [[4, 0.0], [16, 0.0], [8, 0.0], [8, 0.02]]
    run = make_run(tmp_path / "film" / "0", {"seed": 0, "model": model_cfg, "data": {"test_degradations": degradations}},
                   metrics={"test/rmse_lu": 1.0})
    (run / "checkpoints").mkdir()
    torch.save({"state_dict": {f"model.{k}": v for k, v in net.state_dict().items()}}, run / "checkpoints" / "last.ckpt")
    make_run(tmp_path / "none" / "0", {"seed": 0, "model": {**model_cfg, "degradation_condition": "none"}},
             metrics={"test/rmse_lu": 1.0})  # skipped: no FiLM
    lines = report([tmp_path])
    assert sum("| 0 | ×" in line for line in lines) == 4 and not any("none" in line for line in lines)
    assert any("×16, σ 0 | 4.21e-01 | 8.41e-01 | 5.00e-01" in line for line in lines)  # mean |γ| = 0.8413 / 2
    delta = 0.841345 - 0.345731  # GELU(1) − GELU(0.5)
    assert any(f"max |Δγ| ×16 − ×4 = {delta:.2e}, max |Δβ| = 0.00e+00" in line for line in lines)
