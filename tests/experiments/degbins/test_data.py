"""Depth-SR loaders: small files the tests write (both layouts), the shared real folder, and errors."""

from pathlib import Path

import numpy as np
import pytest
import torch
from PIL import Image

from experiments.degbins.datamodule import DepthSRDataModule
from experiments.degbins.degrade import PatchDataset, make_sample
from experiments.degbins.metrics import dsr_rmse
from experiments.degbins.sets import read_folder_set, read_nyu_arrays
from reprolab.cli.errors import CorruptDataError, DatasetNotFoundError


def write_middlebury(root: Path, n: int = 3, size=(52, 40)) -> Path:
    folder = root / "Middlebury"
    (folder / "RGB").mkdir(parents=True)
    (folder / "Depth").mkdir()
    rng = np.random.default_rng(0)
    for i in range(1, n + 1):
        rgb = rng.integers(0, 256, (size[1], size[0], 3), dtype=np.uint8)
        depth = np.tile(np.linspace(10, 200, size[0]).astype(np.uint8), (size[1], 1))
        Image.fromarray(rgb).save(folder / "RGB" / f"Middlebury_{i:02d}_output_color.png")
        Image.fromarray(depth).save(folder / "Depth" / f"Middlebury_{i:02d}_output_depth.png")
    return folder


def write_rgbdd_real(root: Path) -> Path:
    folder = root / "RGBDD_Test_Realscene"
    for sub in ("RGB", "Depth", "DepthLR"):
        (folder / sub).mkdir(parents=True)
    Image.fromarray(np.zeros((32, 48, 3), np.uint8)).save(folder / "RGB" / "t1_RGB.jpg")
    Image.fromarray(np.full((32, 48), 1500, np.uint16)).save(folder / "Depth" / "t1_HR_gt.png")
    lr = np.linspace(1000, 2000, 12 * 8).reshape(8, 12).astype(np.uint16)
    Image.fromarray(lr).save(folder / "DepthLR" / "t1_LR_fill_depth.png")
    return folder


def write_nyu_arrays(root: Path, n_train: int = 4, n_test: int = 2) -> Path:
    folder = root / "nyuv2-dsr"
    folder.mkdir()
    rng = np.random.default_rng(1)
    np.save(folder / "train_images_split.npy", rng.integers(0, 256, (n_train, 32, 48, 3), dtype=np.uint8))
    np.save(folder / "train_depth_split.npy", rng.random((n_train, 32, 48), dtype=np.float32))
    np.save(folder / "test_images_v2.npy", rng.integers(0, 256, (n_test, 32, 48, 3), dtype=np.uint8))
    np.save(folder / "test_depth.npy", rng.random((n_test, 32, 48), dtype=np.float32))
    np.save(folder / "test_minmax.npy", np.array([[5.0] * n_test, [1.0] * n_test], dtype=np.float32))
    return folder


def test_folder_sets_pair_rgb_with_depth_and_select_1_based_positions(tmp_path):
    folder = write_middlebury(tmp_path)
    pairs = read_folder_set(folder, "middlebury", exclude=[2])
    assert [p.name for p in pairs] == ["middlebury/Middlebury_01", "middlebury/Middlebury_03"]
    assert pairs[0].rgb.shape == (40, 52, 3) and pairs[0].depth.dtype == np.float32
    assert [p.name for p in read_folder_set(folder, "middlebury", include=[3])] == ["middlebury/Middlebury_03"]
    with pytest.raises(ValueError, match="outside 1..3"):
        read_folder_set(folder, "middlebury", include=[4])


def test_samples_are_mod_cropped_bicubic_degraded_and_exact_when_undone(tmp_path):
    pair = read_folder_set(write_middlebury(tmp_path), "middlebury")[0]
    s = make_sample(pair, scale=8, convention="middlebury")
    assert s["gt"].shape == (1, 40, 48) and s["lr"].shape == (1, 5, 6) and s["rgb"].shape == (3, 40, 48)
    assert s["minmax"].tolist() == [255.0, 0.0]
    assert torch.allclose(s["gt"][0] * 255, torch.from_numpy(pair.depth[:40, :48]))
    assert float(dsr_rmse(s["gt"], s["gt"], "middlebury")) == 0.0
    noisy = make_sample(pair, scale=8, convention="middlebury", noise_std=0.05)
    assert 0.02 < float((noisy["lr"] - s["lr"]).std()) < 0.1


def test_real_rgbdd_lr_sets_the_normalisation_range(tmp_path):
    pair = read_folder_set(write_rgbdd_real(tmp_path), "rgbdd_real")[0]
    s = make_sample(pair, scale=4, convention="rgbdd")
    hi, lo = s["minmax"].tolist()
    assert (hi, lo) == pytest.approx((2000.0, 1000.0), abs=15)  # from the real LR map, not the flat HR
    assert s["lr"].shape == (1, 8, 12)
    # HR is 1500 mm everywhere: de-normalised gt must give that back
    assert torch.allclose(s["gt"] * (hi - lo) + lo, torch.full_like(s["gt"], 1500.0), atol=1e-3)


def test_nyu_arrays_carry_their_minmax(tmp_path):
    folder = write_nyu_arrays(tmp_path)
    test = read_nyu_arrays(folder, "test")
    assert len(test) == 2 and test[0].minmax == (5.0, 1.0)
    assert len(read_nyu_arrays(folder, "train", include=[1, 2])) == 2
    s = make_sample(test[0], scale=4, convention="nyu")
    assert s["minmax"].tolist() == [5.0, 1.0]
    np.save(folder / "test_minmax.npy", np.zeros((3, 2)))
    with pytest.raises(CorruptDataError, match="must be"):
        read_nyu_arrays(folder, "test")


def test_patches_are_aligned_and_reproducible(tmp_path):
    samples = [make_sample(p, 4, "middlebury") for p in read_folder_set(write_middlebury(tmp_path), "middlebury")]
    data = PatchDataset(samples, scale=4, patch=16, length=5, seed=3, augment=False)
    a, b = data[2], data[2]
    assert torch.equal(a["gt"], b["gt"])
    assert a["gt"].shape == (1, 16, 16) and a["lr"].shape == (1, 4, 4)
    with pytest.raises(ValueError, match="multiple of the scale"):
        PatchDataset(samples, scale=4, patch=18, length=1)[0]


def test_min_edge_redraws_flat_patches(tmp_path):
    (edged,) = [make_sample(p, 4, "middlebury") for p in read_folder_set(write_middlebury(tmp_path, n=1), "middlebury")]
    flat = {k: v.clone() if torch.is_tensor(v) else v for k, v in edged.items()}
    flat["gt"].fill_(0.5)
    flat["lr"].fill_(0.5)

    def ranges(min_edge):
        data = PatchDataset([flat, edged], scale=4, patch=16, length=40, seed=0, augment=False, min_edge=min_edge,
                            tries=30)
        return [float(data[i]["gt"].max() - data[i]["gt"].min()) for i in range(len(data))]

    assert min(ranges(0.0)) == 0.0  # about half the patches come from the flat image
    assert min(ranges(0.01)) >= 0.01


def test_missing_and_corrupt_files_raise_actionable_errors(tmp_path):
    with pytest.raises(DatasetNotFoundError, match="make data-depth-sr"):
        read_folder_set(tmp_path / "Lu", "lu")
    with pytest.raises(DatasetNotFoundError, match="test_images_v2.npy"):
        read_nyu_arrays(tmp_path, "test")
    folder = write_middlebury(tmp_path)
    (folder / "RGB" / "Middlebury_02_output_color.png").write_bytes(b"not a png")
    with pytest.raises(CorruptDataError, match="Middlebury_02_output_color"):
        read_folder_set(folder, "middlebury")
    with pytest.raises(ValueError, match="unknown depth-SR set kind"):
        read_folder_set(folder, "kitti")


def test_datamodule_on_the_shared_real_folder(data_dir):
    dm = DepthSRDataModule(
        data_dir=str(data_dir), scale=8, patch_size=64, batch_size=2, patches_per_epoch=4, min_edge=0.05,
        train_sets=[{"name": "midd", "kind": "middlebury", "path": "depth-sr/Middlebury", "include": [3, 4]}],
        val_sets=[{"name": "real", "kind": "rgbdd_real", "path": "depth-sr/RGBDD_Test_Realscene", "include": [2]}],
        test_sets=[{"name": "lu", "kind": "lu", "path": "depth-sr/Lu", "include": [1]},
                   {"name": "nyu", "kind": "nyu", "path": "depth-sr/NYUDepthv2_Test", "include": [1]}])
    dm.setup("fit")
    dm.setup("test")
    batch = next(iter(dm.train_dataloader()))
    assert batch["gt"].shape == (2, 1, 64, 64) and batch["lr"].shape == (2, 1, 8, 8)
    assert dm.train_set.min_edge == 0.05  # near-flat patches are redrawn, as in the claim check
    lu = dm.test_sets[0][0]
    assert lu["gt"].shape == (1, 480, 640) and lu["lr"].shape == (1, 60, 80)
    nyu = dm.test_sets[1][0]
    hi, lo = nyu["minmax"].tolist()
    assert 0.5 < lo < hi < 10.0  # metres
    assert dm.conventions("test") == [("lu", "lu"), ("nyu", "nyu")]
    real = dm.val_sets[0][0]
    assert real["lr"].shape == (1, 48, 64)  # the real 192x144 capture resized to 512/8 x 384/8


def test_datamodule_reports_a_missing_dataset(tmp_path):
    dm = DepthSRDataModule(data_dir=str(tmp_path), test_sets=[{"name": "lu", "kind": "lu", "path": "depth-sr/Lu"}])
    with pytest.raises(DatasetNotFoundError, match="paths.data_dir"):
        dm.setup("test")


def test_each_epoch_draws_fresh_patches_and_epoch_zero_is_unchanged(tmp_path):
    from experiments.degbins.degrade import EpochPatchSampler

    samples = [make_sample(p, 4, "middlebury") for p in read_folder_set(write_middlebury(tmp_path), "middlebury")]
    data = PatchDataset(samples, scale=4, patch=16, length=3, seed=1, augment=True)
    sampler = EpochPatchSampler(len(data), seed=1)
    first = [data[i]["gt"] for i in sampler]
    assert list(sampler) == [0, 1, 2]
    sampler.set_epoch(1)  # what Lightning does at every epoch
    assert list(sampler) == [3, 4, 5]
    second = [data[i]["gt"] for i in sampler]
    assert not any(torch.equal(a, b) for a, b in zip(first, second, strict=True))
    rng = np.random.default_rng((1, 0, 2))  # epoch 0, patch 2: the seeding the claim check's results used
    from experiments.degbins.degrade import random_patch
    assert torch.equal(first[2], random_patch(samples[int(rng.integers(0, 3))], 4, 16, rng, True)["gt"])
