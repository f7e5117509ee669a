"""Gaussian NLL (with constants, in original units), β-NLL's stop-gradient, the calibration error and the
constant-scale calibration, against torch's reference and hand-worked numbers."""

import math

import pytest
import torch

from experiments.heteroskedastic.metrics import (
    gaussian_nll,
    quantile_calibration_error,
    regression_metrics,
    to_original_units,
)
from experiments.heteroskedastic.posthoc import calibration_scale
from experiments.heteroskedastic.task import beta_nll


def test_gaussian_nll_matches_torch_full_and_hand_values():
    y, mean, var = torch.tensor([1.0, -2.0, 0.5]), torch.tensor([0.0, -1.0, 0.5]), torch.tensor([1.0, 4.0, 0.25])
    reference = torch.nn.GaussianNLLLoss(full=True, eps=0.0, reduction="none")(mean, y, var)
    assert torch.allclose(gaussian_nll(y, mean, var), reference)
    # by hand: ½ log 2π + ½ log 1 + ½ = 1.418939; ½ log 2π + ½ log 4 + 1/8; ½ log 2π + ½ log ¼
    hand = [0.5 * math.log(2 * math.pi) + 0.5, 0.5 * math.log(2 * math.pi) + math.log(2) + 0.125,
            0.5 * math.log(2 * math.pi) - math.log(2)]
    assert torch.allclose(gaussian_nll(y, mean, var), torch.tensor(hand))
    assert abs(hand[0] - 1.4189385) < 1e-6


def test_original_units_shift_nll_by_log_of_the_target_std():
    """y = s y' + m: NLL in original units = NLL in standardised units + log s (per sample)."""
    y_std, mean_std, var_std = torch.tensor([0.3, -1.2]), torch.tensor([0.1, -0.7]), torch.tensor([0.5, 2.0])
    s, m = 10.0, 3.0
    mean, var = to_original_units(mean_std, var_std, m, s)
    assert torch.allclose(mean, torch.tensor([4.0, -4.0])) and torch.allclose(var, torch.tensor([50.0, 200.0]))
    y = y_std * s + m
    assert torch.allclose(gaussian_nll(y, mean, var), gaussian_nll(y_std, mean_std, var_std) + math.log(s))
    metrics = regression_metrics(y, mean, var, torch.full_like(y, float("nan")), torch.tensor([0.5]))
    assert torch.isclose(metrics["rmse"], torch.sqrt(torch.tensor((2.0**2 + 5.0**2) / 2)))
    assert "sigma_rmse" not in metrics


def test_sigma_error_against_a_known_sigma():
    y = torch.zeros(2)
    metrics = regression_metrics(y, y, torch.tensor([1.0, 4.0]), torch.tensor([1.5, 1.0]), torch.tensor([0.5]))
    assert torch.isclose(metrics["sigma_rmse"], torch.sqrt(torch.tensor((0.5**2 + 1.0**2) / 2)))


def test_beta_nll_stops_the_gradient_through_its_weight():
    y, mean = torch.tensor([1.0, -1.0]), torch.tensor([0.2, 0.4], requires_grad=True)
    var = torch.tensor([0.5, 2.0], requires_grad=True)
    beta_nll(y, mean, var, beta=0.5).backward()
    w = var.detach() ** 0.5
    # d/dμ of w·[(y-μ)²/2σ²]/n = -w (y-μ)/σ²/n;  d/dσ² of w·[½ log σ² + (y-μ)²/2σ²]/n = w (½/σ² - (y-μ)²/2σ⁴)/n
    r = y - mean.detach()
    assert torch.allclose(mean.grad, -w * r / var.detach() / 2)
    assert torch.allclose(var.grad, w * (0.5 / var.detach() - r**2 / (2 * var.detach() ** 2)) / 2)


def test_beta_one_gives_the_mean_the_gradient_of_half_the_mse():
    y, mean = torch.tensor([1.0, -1.0, 3.0]), torch.tensor([0.0, 0.5, 1.0], requires_grad=True)
    beta_nll(y, mean, torch.tensor([0.1, 3.0, 7.0]), beta=1.0).backward()
    assert torch.allclose(mean.grad, -(y - mean.detach()) / 3)


def test_calibration_scale_by_hand_and_nll_optimal():
    residuals, var = torch.tensor([1.0, 2.0, -3.0]), torch.tensor([1.0, 2.0, 9.0])
    s = calibration_scale(residuals, var)  # (1/1 + 4/2 + 9/9) / 3 = 4/3
    assert torch.isclose(s, torch.tensor(4 / 3))
    nll = lambda scale: gaussian_nll(residuals, torch.zeros(3), scale * var).mean()
    assert nll(s) < nll(s * 1.05) and nll(s) < nll(s / 1.05)


def test_calibration_error_zero_for_exact_quantiles_and_large_for_overconfidence():
    levels = torch.tensor([0.25, 0.5, 0.75])
    z = torch.distributions.Normal(0.0, 1.0).icdf(torch.linspace(0.01, 0.99, 99))
    mean, std = torch.zeros(99), torch.ones(99)
    assert quantile_calibration_error(z, mean, std, levels) < 0.011
    # y = 10 z: P̂(y <= ±0.674) = 47/99 and 52/99 (z <= ±0.0674), P̂(y <= 0) = 50/99
    hand = (abs(47 / 99 - 0.25) + abs(50 / 99 - 0.5) + abs(52 / 99 - 0.75)) / 3
    assert quantile_calibration_error(10 * z, mean, std, levels) == pytest.approx(hand, abs=1e-6)
