"""dsr_rmse against hand-computed values, one per convention (6-px border crop, unit conversion)."""

import math

import pytest
import torch

from experiments.degbins.metrics import dsr_rmse


def framed(center: list[list[float]], frame: float = 0.0) -> torch.Tensor:
    """A 14x14 map: the given 2x2 centre inside a 6-px frame of `frame` (which the crop must drop)."""
    x = torch.full((14, 14), frame)
    x[6:8, 6:8] = torch.tensor(center)
    return x


def test_middlebury_is_the_0_255_scale_after_the_border_crop():
    pred = framed([[1, 2], [3, 4]], frame=0.9).double() / 255.0
    pred[:6] = 0.9  # garbage in the border must not count
    gt = framed([[0, 0], [0, 0]])
    assert float(dsr_rmse(pred, gt, "middlebury")) == pytest.approx(math.sqrt((1 + 4 + 9 + 16) / 4), rel=1e-6)
    assert float(dsr_rmse(pred, gt, "lu")) == pytest.approx(math.sqrt(7.5), rel=1e-6)


def test_nyu_denormalises_with_per_image_max_min_and_reports_cm():
    # max 5 m, min 1 m: 0.5 -> 3 m, 0.25 -> 2 m; one pixel off by 1 m = 100 cm, three exact.
    pred = framed([[0.5, 0.25], [0.25, 0.25]], frame=0.7)
    gt = framed([[0.25, 0.25], [0.25, 0.25]], frame=0.1)
    rmse = dsr_rmse(pred, gt, "nyu", minmax=torch.tensor([5.0, 1.0]))
    assert float(rmse) == pytest.approx(math.sqrt(100.0**2 / 4), rel=1e-6)  # 50 cm


def test_rgbdd_denormalises_millimetres_and_reports_cm():
    # range 1000..2000 mm: 0.51 vs 0.50 is 10 mm = 1 cm everywhere
    pred, gt = torch.full((20, 20), 0.51), torch.full((20, 20), 0.50)
    assert float(dsr_rmse(pred, gt, "rgbdd", minmax=torch.tensor([2000.0, 1000.0]))) == pytest.approx(1.0, rel=1e-6)


def test_batches_give_one_rmse_per_image_with_their_own_minmax():
    gt = torch.zeros(2, 1, 16, 16)
    pred = torch.zeros(2, 1, 16, 16)
    pred[0] += 0.1
    pred[1] += 0.2
    rmse = dsr_rmse(pred, gt, "nyu", minmax=torch.tensor([[2.0, 1.0], [11.0, 1.0]]))
    assert rmse.shape == (2,)
    assert rmse.tolist() == pytest.approx([10.0, 200.0], rel=1e-6)  # 0.1 m and 2 m


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        (dict(convention="kitti"), "unknown DSR convention"),
        (dict(convention="nyu"), "pass minmax"),
        (dict(convention="rgbdd"), "pass minmax"),
        (dict(convention="middlebury", minmax=torch.tensor([255.0, 0.0])), "minmax must be None"),
    ],
)
def test_convention_errors(kwargs, message):
    with pytest.raises(ValueError, match=message):
        dsr_rmse(torch.zeros(20, 20), torch.zeros(20, 20), **kwargs)


def test_shape_errors():
    with pytest.raises(ValueError, match="same shape"):
        dsr_rmse(torch.zeros(20, 20), torch.zeros(20, 21), "lu")
    with pytest.raises(ValueError, match="too small"):
        dsr_rmse(torch.zeros(12, 12), torch.zeros(12, 12), "lu")
    with pytest.raises(ValueError, match=r"\(B, 1, H, W\)"):
        dsr_rmse(torch.zeros(1, 3, 20, 20), torch.zeros(1, 3, 20, 20), "lu")
