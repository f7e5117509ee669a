"""scripts/data/prepare_depth_sr.py offline: the NYU .mat -> DKN/SGNet arrays, and the checksum list."""

import importlib.util
from pathlib import Path

import numpy as np
import pytest

from experiments.degbins.sets import read_nyu_arrays

SCRIPT = Path(__file__).resolve().parents[3] / "scripts" / "data" / "prepare_depth_sr.py"
spec = importlib.util.spec_from_file_location("prepare_depth_sr", SCRIPT)
prepare = importlib.util.module_from_spec(spec)
spec.loader.exec_module(prepare)


def test_labelled_mat_becomes_the_split_arrays(tmp_path, monkeypatch):
    h5py = pytest.importorskip("h5py")
    monkeypatch.setattr(prepare, "N_TRAIN", 3)
    rng = np.random.default_rng(0)
    images = rng.integers(0, 256, (5, 3, 8, 6), dtype=np.uint8)  # MATLAB order: N, C, W, H
    depths = (1.0 + 4.0 * rng.random((5, 8, 6))).astype(np.float32)  # N, W, H in metres
    with h5py.File(tmp_path / "nyu.mat", "w") as f:
        f["images"], f["depths"] = images, depths
    prepare.nyu_arrays(tmp_path / "nyu.mat", tmp_path / "out")
    train, test = read_nyu_arrays(tmp_path / "out", "train"), read_nyu_arrays(tmp_path / "out", "test")
    assert len(train) == 3 and len(test) == 2
    assert train[0].rgb.shape == (6, 8, 3) and np.array_equal(train[0].rgb[2, 5], images[0, :, 5, 2])
    hi, lo = test[1].minmax
    metres = depths[4].T
    assert (hi, lo) == pytest.approx((metres.max(), metres.min()))
    assert np.allclose(test[1].depth * (hi - lo) + lo, metres, atol=1e-5)


def test_checksums_cover_the_shared_folder(data_dir):
    checked, bad = prepare.verify(data_dir, strict=False)
    assert bad == [] and checked >= 170
