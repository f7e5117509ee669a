"""Evaluation in the target's original units: Gaussian NLL with its constants, RMSE, the calibration error
over quantile levels, and the error of σ̂ against a known σ."""

from __future__ import annotations

import math

import torch
from torch import Tensor

LOG_2PI = math.log(2 * math.pi)


def gaussian_nll(y: Tensor, mean: Tensor, var: Tensor) -> Tensor:
    """Per-sample −log N(y; μ, σ²) = ½ log 2π + ½ log σ² + (y − μ)² / 2σ² (nats)."""
    return 0.5 * (LOG_2PI + torch.log(var) + (y - mean) ** 2 / var)


def to_original_units(mean: Tensor, var: Tensor, target_mean: float, target_std: float) -> tuple[Tensor, Tensor]:
    """Undo the train-split standardisation y' = (y − m)/s: μ = s μ' + m, σ² = s² σ'²."""
    return mean * target_std + target_mean, var * target_std**2


def quantile_calibration_error(y: Tensor, mean: Tensor, std: Tensor, levels: Tensor) -> Tensor:
    """Mean over levels p of |P̂(y ≤ μ + σ Φ⁻¹(p)) − p| (Kuleshov et al. 2018's calibration error, L1)."""
    z = torch.distributions.Normal(0.0, 1.0).icdf(levels.to(y))
    observed = (y[:, None] <= mean[:, None] + std[:, None] * z[None, :]).float().mean(0)
    return (observed - levels.to(y)).abs().mean()


def regression_metrics(y: Tensor, mean: Tensor, var: Tensor | None, sigma_true: Tensor, levels: Tensor) -> dict:
    """All in original units; `sigma_true` NaN where the noise level is unknown."""
    out = {"rmse": torch.sqrt(((y - mean) ** 2).mean())}
    if var is not None:
        out["nll"] = gaussian_nll(y, mean, var).mean()
        out["calibration_error"] = quantile_calibration_error(y, mean, var.sqrt(), levels)
        out["mean_sigma"] = var.sqrt().mean()
        known = torch.isfinite(sigma_true)
        if known.any():
            out["sigma_rmse"] = torch.sqrt(((var.sqrt() - sigma_true)[known] ** 2).mean())
    return out
