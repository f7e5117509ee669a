"""The patch diagnostic of the degradation estimate: tiling, its agreement with the whole-image estimate on an image
that is one patch, and a tiny trainer run on generated Middlebury-shaped images (no shared data)."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch
from omegaconf import OmegaConf

from experiments.degbins.degrade import make_sample
from experiments.degbins.estimate_patches import image_estimates, mean_code, report, run_errors, tiles
from experiments.degbins.model import DegBinsNet
from experiments.degbins.sets import DepthPair
from reprolab.cli.train import run
from reprolab.config.compose import compose
from tests.experiments.degbins.test_data import write_middlebury


def tiny_model() -> DegBinsNet:
    torch.manual_seed(0)
    return DegBinsNet(channels=4, dilations=(1, 2), num_bins=4, stages=1, unshuffle=4, degradation_condition="film",
                      estimate_degradation=True).eval()


def sample(h: int, w: int, scale: int = 8, flat_left: bool = False) -> dict:
    rng = np.random.default_rng(1)
    depth = rng.uniform(20, 230, (h, w)).astype(np.float32)
    if flat_left:
        depth[:, : w // 2] = 100.0
    pair = DepthPair("x", rng.integers(0, 256, (h, w, 3), dtype=np.uint8), depth)
    return make_sample(pair, scale, "middlebury", noise_std=0.02, rng=rng)


def test_an_image_that_is_one_patch_gives_the_whole_image_estimate_and_whole_is_the_models_own():
    model, s = tiny_model(), sample(64, 64)
    est = image_estimates(model, s, patch=64, min_edge=0.0)
    with torch.no_grad():
        own = model(s["rgb"][None], s["lr"][None], s["degradation"][None])["degradation_estimate"][0]
    assert torch.equal(est["whole"], own)
    assert torch.allclose(est["tiles"], est["whole"], atol=1e-6) and torch.allclose(est["edge tiles"], own, atol=1e-6)


def test_tiles_are_aligned_crops_and_their_estimate_is_the_mean_over_tiles():
    model, s = tiny_model(), sample(72, 104, flat_left=True)  # 2 x 3 tiles of 32; 8 rows and 8 columns left out
    rgb, lr, gt = tiles(s, 32)
    assert rgb.shape == (6, 3, 32, 32) and lr.shape == (6, 1, 4, 4) and gt.shape == (6, 1, 32, 32)
    assert torch.equal(gt[5], s["gt"][:, 32:64, 64:96]) and torch.equal(lr[5], s["lr"][:, 4:8, 8:12])
    with torch.no_grad():
        one_by_one = [model(rgb[i:i + 1], lr[i:i + 1], s["degradation"][None])["degradation_estimate"][0]
                      for i in range(6)]
    est = image_estimates(model, s, patch=32, min_edge=0.05)
    assert torch.allclose(est["tiles"], torch.stack(one_by_one).mean(0), atol=1e-6)
    # columns 0-51 are flat: the tiles at x = 0 are flat, those at x = 32 (columns 32-63) and 64 are not
    edged = [i for i in range(6) if float(gt[i].max() - gt[i].min()) >= 0.05]
    assert edged == [1, 2, 4, 5]
    assert torch.allclose(est["edge tiles"], torch.stack([one_by_one[i] for i in edged]).mean(0), atol=1e-6)
    assert image_estimates(model, sample(64, 64, flat_left=True), 64, min_edge=2.0)["edge tiles"] is None
    with pytest.raises(ValueError, match="multiple of the scale"):
        tiles(sample(64, 64, scale=16), 24)
    with pytest.raises(ValueError, match="smaller than"):
        tiles(s, 128)


def test_mean_code_of_the_mixed_training_is_the_pre_registered_constant():
    c = mean_code([[4, 0.0], [8, 0.0], [16, 0.0], [8, 0.02]])
    assert c.tolist() == pytest.approx([0.75, 0.1])
    # RESULTS.md, session 7: the constant errs 0.27 / 0.10 / 0.27 / 0.30 at x4 / x8 / x16 / noisy x8
    assert (c - torch.tensor([0.5, 0.0])).norm().item() == pytest.approx(0.2693, abs=1e-4)


def test_a_tiny_trainer_run_is_reproduced_whole_and_a_wrong_log_is_refused(tmp_path):
    write_middlebury(tmp_path / "data", n=2, size=(96, 64))
    sets = "[{name:mb,kind:middlebury,path:Middlebury}]"
    out = tmp_path / "sweep" / "0"
    cfg = compose(["experiment=degbins/claim_mixed_b32", f"paths.data_dir={tmp_path / 'data'}", "logger=none",
                   "print_config=false", "data.batch_size=2", "data.patches_per_epoch=4", "data.patch_size=32",
                   "data.min_edge=0", f"data.train_sets={sets}", f"data.val_sets={sets}", f"data.test_sets={sets}"],
                  output_dir=out)
    logged = run(cfg)
    (out / ".hydra").mkdir()
    OmegaConf.save(cfg, out / ".hydra" / "config.yaml")  # what the Hydra app saves beside every run
    errors = run_errors(out)
    assert list(errors) == ["mb_x4_n0", "mb_x8_n0", "mb_x16_n0", "mb_x8_n0.02"]
    for name, ways in errors.items():
        assert ways["whole"] == pytest.approx(logged[f"test/degradation_error_{name}"], abs=1e-6)
        assert ways["tiles"] != ways["whole"]  # 96 x 64 holds 3 x 2 tiles of 32: other pooling, other estimate
    assert errors["mb_x8_n0.02"]["constant"] == pytest.approx(0.3, abs=1e-6)
    lines = report([tmp_path / "sweep"])
    assert lines[0].startswith("1 runs:") and sum(line.startswith("| mb_x") for line in lines) == 4
    assert any(line.startswith("- constant: 1 of 4 cells under 0.125") for line in lines)  # only clean x8 (0.10)
    metrics = json.loads((out / "metrics.json").read_text())
    metrics["test/degradation_error_mb_x16_n0"] += 1e-4
    (out / "metrics.json").write_text(json.dumps(metrics))
    with pytest.raises(ValueError, match="does not reproduce the logged"):
        run_errors(out)
