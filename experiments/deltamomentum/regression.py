"""Claim 1: streaming linear regression with anisotropic, rotated inputs (a stream for reprolab.data.streaming).

Inputs x = Q·diag(√λ)·z with variances λ log-spaced over `decades` decades, rotated by a fixed random
orthogonal Q (with axis-aligned inputs Adam's diagonal second moment would already precondition; the
rotation is what a full key covariance sees and a diagonal does not). Targets y = w*ᵀx + noise·ε, a
fresh batch every step, optional random-walk drift of w*. The metric is the excess risk
(w − w*)ᵀΣ(w − w*), relative to its initial value R₀ = w*ᵀΣw* (the model starts at w = 0), logged at
every validation so steps-to-target (`reprolab.results.steps_to_target`) reads the first step at 1 %.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

from reprolab.tasks.base import Task

TARGET_SEED_OFFSET = 7919  # w* gets its own generator, independent of the batches drawn with `seed`


class AnisotropicRegression:
    def __init__(self, dim: int = 32, decades: float = 3.5, rotate: bool = True, noise: float = 0.01,
                 drift: float = 0.0, seed: int = 0, basis_seed: int = 1234):
        if dim < 1 or decades < 0 or noise < 0 or drift < 0:
            raise ValueError(f"need dim ≥ 1 and decades, noise, drift ≥ 0; got {dim}, {decades}, {noise}, {drift}")
        self.eigenvalues = torch.logspace(0, -decades, dim)
        basis = torch.randn(dim, dim, generator=torch.Generator().manual_seed(basis_seed))
        self.rotation = torch.linalg.qr(basis)[0] if rotate else torch.eye(dim)
        self.covariance = self.rotation @ torch.diag(self.eigenvalues) @ self.rotation.T
        self.w_star = torch.randn(dim, generator=torch.Generator().manual_seed(seed + TARGET_SEED_OFFSET))
        self.noise, self.drift = noise, drift
        self.initial_risk = float(self.w_star @ self.covariance @ self.w_star)

    def sample(self, generator: torch.Generator, batch_size: int) -> tuple[torch.Tensor, torch.Tensor]:
        """(x [B, d], y [B]) with Cov(x) = Q diag(λ) Qᵀ and y = w*ᵀx + noise·ε."""
        z = torch.randn(batch_size, len(self.eigenvalues), generator=generator)
        x = (z * self.eigenvalues.sqrt()) @ self.rotation.T
        return x, x @ self.w_star + self.noise * torch.randn(batch_size, generator=generator)

    def advance(self, generator: torch.Generator) -> None:
        """One step of the random walk w* ← w* + drift·ε (no draw when drift is 0)."""
        if self.drift:
            self.w_star = self.w_star + self.drift * torch.randn(len(self.w_star), generator=generator)

    def excess_risk(self, w: torch.Tensor) -> float:
        err = w.detach().flatten().float() - self.w_star
        return float(err @ self.covariance @ err)


class LinearRegressor(nn.Module):
    """y = wᵀx, no bias, w = 0 at the start (so the initial excess risk is R₀)."""

    def __init__(self, dim: int = 32):
        super().__init__()
        self.linear = nn.Linear(dim, 1, bias=False)
        nn.init.zeros_(self.linear.weight)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.linear(x).squeeze(-1)


class ExcessRiskTask(Task):
    """MSE on the stream; validation logs the excess risk of the current weights against the stream's w*."""

    def training_step(self, batch, batch_idx):
        x, y = batch
        loss = F.mse_loss(self.model(x), y)
        self.log("train/loss", loss, on_step=True, on_epoch=False)
        return loss

    def _evaluate(self, batch, split: str) -> None:
        x, y = batch
        stream = self.trainer.datamodule.stream
        risk = stream.excess_risk(self.model.linear.weight)
        self.log(f"{split}/loss", F.mse_loss(self.model(x), y), on_epoch=True)
        self.log(f"{split}/excess_risk", risk, on_epoch=True)
        self.log(f"{split}/relative_excess_risk", risk / stream.initial_risk, on_epoch=True)

    def validation_step(self, batch, batch_idx):
        self._evaluate(batch, "val")

    def test_step(self, batch, batch_idx):
        self._evaluate(batch, "test")
