"""The degradation made explicit: synthetic RGB-D-D normalised by the LR range, mixed-degradation batches,
per-degradation test sets, FiLM conditioning, the degradation estimate and its loss, the bin-width statistic."""

from pathlib import Path

import numpy as np
import pytest
import torch
from PIL import Image

from experiments.degbins.datamodule import DepthSRDataModule
from experiments.degbins.degrade import MixedPatchDataset, PatchDataset, bicubic_resize, make_sample
from experiments.degbins.heads import bin_spread, expected_bin_width
from experiments.degbins.model import DegBinsNet, count_parameters, degradation_code, degradation_error
from experiments.degbins.sets import read_folder_set
from experiments.degbins.task import DepthSRTask
from reprolab.cli.errors import ConfigError
from tests.experiments.degbins.test_data import write_middlebury


def write_rgbdd(root: Path) -> Path:
    """One synthetic RGB-D-D pair whose HR map has a one-pixel spike that bicubic down-sampling flattens."""
    folder = root / "RGBDD"
    for sub in ("RGB", "Depth"):
        (folder / sub).mkdir(parents=True)
    depth = np.tile(np.linspace(1000, 2000, 48), (32, 1)).astype(np.uint16)
    depth[10, 10] = 4000
    Image.fromarray(np.zeros((32, 48, 3), np.uint8)).save(folder / "RGB" / "a_RGB.jpg")
    Image.fromarray(depth).save(folder / "Depth" / "a_HR_gt.png")
    return folder


def test_synthetic_rgbdd_is_normalised_by_the_lr_maps_range(tmp_path):
    pair = read_folder_set(write_rgbdd(tmp_path), "rgbdd")[0]
    s = make_sample(pair, scale=4, convention="rgbdd")
    lr_raw = bicubic_resize(pair.depth, (12, 8))
    hi, lo = s["minmax"].tolist()
    assert (hi, lo) == pytest.approx((float(lr_raw.max()), float(lr_raw.min())))
    assert hi < 3900  # not the HR spike of 4000
    assert float(s["lr"].min()) == pytest.approx(0.0, abs=1e-5) and float(s["lr"].max()) == pytest.approx(1.0, abs=1e-5)
    assert float(s["gt"].max()) > 1.0  # the spike lies above the LR range
    assert torch.allclose(s["gt"][0] * (hi - lo) + lo, torch.from_numpy(pair.depth), atol=0.05)
    assert s["degradation"].tolist() == [4.0, 0.0]


def test_mixed_degradations_share_one_per_batch_and_add_their_noise(tmp_path):
    pairs = read_folder_set(write_middlebury(tmp_path, size=(64, 64)), "middlebury")
    pools = {s: PatchDataset([make_sample(p, s, "middlebury") for p in pairs], s, 32, 64, seed=1) for s in (4, 8)}
    mixed = MixedPatchDataset(pools, [(4, 0.0), (8, 0.0), (8, 0.1)], group=4, seed=1)
    seen = set()
    for batch in range(16):
        items = [mixed[4 * batch + i] for i in range(4)]
        codes = {tuple(x["degradation"].tolist()) for x in items}
        assert len(codes) == 1  # one degradation per batch: LR patches of one size
        (scale, noise), = codes
        seen.add((scale, round(noise, 3)))
        assert all(x["lr"].shape == (1, 32 // int(scale), 32 // int(scale)) for x in items)
        clean = pools[int(scale)][4 * batch]["lr"]
        deviation = float((items[0]["lr"] - clean).std())
        assert (deviation > 0.03) if noise > 0 else deviation == 0.0
    assert seen == {(4.0, 0.0), (8.0, 0.0), (8.0, 0.1)}
    with pytest.raises(ValueError, match="no patch pool"):
        MixedPatchDataset(pools, [(16, 0.0)], group=4)


def test_test_sets_repeat_under_each_degradation(tmp_path):
    write_middlebury(tmp_path / "depth-sr", size=(64, 64))
    dm = DepthSRDataModule(str(tmp_path), scale=8, test_sets=[{"name": "mb", "kind": "middlebury", "path": "depth-sr/Middlebury"}],
                           test_degradations=[[4, 0.0], [8, 0.02]])
    dm.setup("test")
    assert [n for n, _ in dm.conventions("test")] == ["mb_x4_n0", "mb_x8_n0.02"]
    first, second = dm.test_sets[0][0], dm.test_sets[1][0]
    assert first["lr"].shape == (1, 16, 16) and second["lr"].shape == (1, 8, 8)
    assert second["degradation"].tolist() == pytest.approx([8.0, 0.02])
    with pytest.raises(ValueError, match="scale must be"):
        DepthSRDataModule(str(tmp_path), train_degradations=[[3, 0.0]])
    with pytest.raises(ValueError, match="pairs"):
        DepthSRDataModule(str(tmp_path), test_degradations=[[4]])


def test_film_starts_as_the_identity_and_then_makes_the_bins_depend_on_the_code():
    torch.manual_seed(0)
    kw = dict(channels=8, dilations=(1,), num_bins=4, stages=2)
    plain, film = DegBinsNet(**kw), DegBinsNet(**kw, degradation_condition="film")
    film.load_state_dict(plain.state_dict(), strict=False)
    for p in film.head.out.parameters():
        torch.nn.init.normal_(p, std=0.5)
    plain.head.out.load_state_dict(film.head.out.state_dict())
    rgb, lr = torch.rand(2, 3, 16, 16), torch.rand(2, 1, 4, 4)
    x4, x16 = torch.tensor([[4.0, 0.0]] * 2), torch.tensor([[16.0, 0.05]] * 2)
    assert torch.allclose(film(rgb, lr, x4)["depth"][-1], plain(rgb, lr)["depth"][-1], atol=1e-6)
    torch.nn.init.normal_(film.film.net[-1].weight, std=0.5)
    assert not torch.allclose(film(rgb, lr, x4)["widths"], film(rgb, lr, x16)["widths"])
    with pytest.raises(ValueError, match="needs each batch"):
        film(rgb, lr)
    with pytest.raises(ValueError, match="degradation_condition"):
        DegBinsNet(**kw, degradation_condition="concat-typo")
    heads = [DegBinsNet(head=h, **kw, degradation_condition="film", estimate_degradation=True) for h in ("bins", "regression")]
    assert count_parameters(heads[0]) == count_parameters(heads[1])


def test_degradation_code_and_expected_bin_width_by_hand():
    assert degradation_code(torch.tensor([[16.0, 0.05], [4.0, 0.0]])).tolist() == [[1.0, 1.0], [0.5, 0.0]]
    probs = torch.tensor([0.25, 0.75]).view(1, 2, 1, 1)
    widths = torch.tensor([0.2, 0.6]).view(1, 2, 1, 1)
    assert float(expected_bin_width(probs, widths)) == pytest.approx(0.25 * 0.2 + 0.75 * 0.6)
    centers = torch.tensor([0.0, 1.0]).view(1, 2, 1, 1)  # mean 0.75, variance 0.25·0.75² + 0.75·0.25² = 0.1875
    assert float(bin_spread(probs, centers)) == pytest.approx(0.1875**0.5)
    out = DegBinsNet(channels=8, dilations=(1,), num_bins=4, stages=1)(torch.rand(1, 3, 8, 8), torch.rand(1, 1, 2, 2))
    assert torch.allclose(out["widths"].sum(1), 2 * out["ranges"][-1][:, 0])  # the widths tile [r − s, r + s]


def test_degradation_loss_needs_the_estimator_and_trains_it():
    net = DegBinsNet(channels=8, dilations=(1,), num_bins=4, stages=1)
    with pytest.raises(ConfigError, match="estimate_degradation"):
        DepthSRTask(net, optimizer=None, degradation_loss_weight=0.1)
    net = DegBinsNet(channels=8, dilations=(1,), num_bins=4, stages=1, estimate_degradation=True)
    task = DepthSRTask(net, optimizer=None, degradation_loss_weight=1.0)
    task.log = lambda *a, **k: None
    batch = {"rgb": torch.rand(2, 3, 16, 16), "lr": torch.rand(2, 1, 2, 2), "gt": torch.rand(2, 1, 16, 16),
             "degradation": torch.tensor([[8.0, 0.0], [8.0, 0.0]])}
    task.degradation_loss_weight = 0.0
    depth_only = task.training_step(batch, 0)
    task.degradation_loss_weight = 1.0
    out = net(batch["rgb"], batch["lr"], batch["degradation"])
    aux = torch.nn.functional.mse_loss(out["degradation_estimate"], out["degradation_code"])
    assert float(task.training_step(batch, 0).detach()) == pytest.approx(float(depth_only + aux), rel=1e-5)


def test_degradation_error_is_the_distance_between_codes_by_hand():
    estimate = torch.tensor([[0.5, 0.0], [0.75, 0.1], [1.3, -0.4]])
    code = degradation_code(torch.tensor([[4.0, 0.0], [8.0, 0.0], [16.0, 0.0]]))  # (0.5, 0), (0.75, 0), (1, 0)
    assert degradation_error(estimate, code).tolist() == pytest.approx([0.0, 0.1, 0.5])  # 3-4-5 triangle
