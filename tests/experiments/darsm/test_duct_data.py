"""The duct loader on fake closure-challenge data of the same format (scattered (x, y, z) in metres, (U, V, W))."""

import sys

import numpy as np
import pytest
import torch

from experiments.darsm import duct_data
from experiments.darsm.duct import Duct
from experiments.darsm.duct_data import DuctDataModule, interpolate_case, parse_case, read_closure_challenge
from reprolab.cli.errors import ConfigError
from reprolab.config.extras import MissingExtraError

pytestmark = pytest.mark.usefixtures("float64_default")
H = duct_data.HALF_HEIGHT


def fake_case(aspect: float, n: int = 3000, seed: int = 0):
    """U = (1 - y^2)(AR^2 - z^2)/AR^2 and a small cross flow, at n random points of the quadrant (metres)."""
    rng = np.random.default_rng(seed)
    y, z = rng.uniform(0, 1, n), rng.uniform(0, aspect, n)
    coords = np.stack([np.full(n, 0.5 * H), y * H, z * H], 1)
    U = np.stack([(1 - y ** 2) * (aspect ** 2 - z ** 2) / aspect ** 2, 0.01 * y * (1 - y) * (aspect - z) / aspect,
                  0.01 * z * (aspect - z) * (1 - y) / aspect], 1)      # no slip on the walls y = 1, z = AR
    return coords, U


def test_parse_case_and_the_rounded_aspect():
    assert parse_case("AR_3_Ret_360") == (3.0, 360.0) and parse_case("AR_14_Ret_180") == (14.4, 180.0)
    with pytest.raises(ConfigError, match="AR_<aspect>_Ret_<re_tau>"):
        parse_case("alpha_05_4071_2024")


def test_interpolation_recovers_the_field_and_divides_by_the_bulk():
    duct = Duct(360.0, aspect=3.0, ny=10, nz=12)
    truth = interpolate_case(duct, *fake_case(3.0))
    yy, zz = torch.meshgrid(duct.y[:-1], duct.z[:-1], indexing="ij")
    exact = (1 - yy ** 2) * (9 - zz ** 2) / 9
    ub = (duct.weight * exact).sum() / 3.0
    assert abs(float((duct.weight * truth["U"]).sum() / 3.0) - 1.0) < 1e-12
    assert float((truth["U"] - exact / ub).abs().max()) < 0.03
    assert float((truth["W"] - 0.01 * zz * (3 - zz) * (1 - yy) / 3 / ub).abs().max()) < 2e-3


def test_points_outside_the_quadrant_are_one_line_error():
    coords, U = fake_case(3.0)
    with pytest.raises(ConfigError, match="leave the quadrant"):
        interpolate_case(Duct(360.0, aspect=1.0, ny=8, nz=8), coords, U)


def test_missing_package_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "closure_challenge", None)
    with pytest.raises(MissingExtraError, match=r"pip install -e '\.\[darsm\]'"):
        read_closure_challenge("AR_1_Ret_360")


def test_datamodule_keeps_train_and_test_ducts_apart():
    with pytest.raises(ConfigError, match="either trained on or held out"):
        DuctDataModule(train_cases=["AR_1_Ret_360"], test_cases=["AR_1_Ret_360"])
    dm = DuctDataModule(ny=8, nz=8, reader=lambda name: fake_case(parse_case(name)[0]))
    dm.setup()
    names = [[c["name"] for c in batch] for batch in (dm.train_dataloader(), dm.test_dataloader()) for batch in batch]
    assert names == [["ar_1_ret_360"], ["ar_1_ret_360", "ar_3_ret_360", "ar_14_ret_180"]]
    assert [c["unseen"] for c in dm.cases.values()] == [False, True, True]
