"""Rectified flow (Liu et al. 2023; the SD3 / FLUX convention): the straight path from data to noise.

x_t = (1 - t) x_0 + t eps, t in [0, 1]; the velocity target is v = eps - x_0 (the flow-matching loss is
E ||v_theta(x_t, t) - v||^2); the one-step estimate of the clean image is x0_hat = x_t - t v_theta; sampling
integrates dx/dt = v_theta from t = 1 (noise) down to t = 0 with Euler steps.
"""

from __future__ import annotations

from collections.abc import Callable

import torch


def interpolate(x0: torch.Tensor, noise: torch.Tensor, t: torch.Tensor) -> torch.Tensor:
    t = t.view(-1, *([1] * (x0.ndim - 1)))
    return (1 - t) * x0 + t * noise


def velocity_target(x0: torch.Tensor, noise: torch.Tensor) -> torch.Tensor:
    return noise - x0


def clean_estimate(x_t: torch.Tensor, t: torch.Tensor, velocity: torch.Tensor) -> torch.Tensor:
    return x_t - t.view(-1, *([1] * (x_t.ndim - 1))) * velocity


def euler_sample(velocity: Callable[[torch.Tensor, torch.Tensor], torch.Tensor], noise: torch.Tensor,
                 steps: int) -> torch.Tensor:
    """Integrate from t = 1 to t = 0 in `steps` equal Euler steps; velocity(x, t) with t of shape (B,)."""
    x = noise
    times = torch.linspace(1.0, 0.0, steps + 1, device=noise.device)
    for t, t_next in zip(times[:-1], times[1:], strict=True):
        x = x + (t_next - t) * velocity(x, t.expand(len(x)))
    return x
