"""Synthetic representations with a known label rule, seen through a random affine map of bounded condition number.

A latent z ~ N(0, I_d) carries the label through a few of its first coordinates (so the canonical basis is
the one in which coordinate-dependent probes look best); the probe sees h = A z + b (`affine: true`) or
h = z. Rules: halfspace (z₁ > 0), xor (z₁ > 0 ⊕ z₂ > 0), circle (z₁² + z₂² > χ²₂ median), parity
(sign z₁z₂z₃ > 0: every degree ≤ 2 moment is label-blind, so degree 2 must fail). Label noise flips a
fraction of labels so no rule is separable and the unpenalised fits stay finite.
"""

from __future__ import annotations

import math

import torch
from torch.utils.data import DataLoader, TensorDataset

from experiments.probes.full_batch import FullBatchSplits
from reprolab.cli.errors import ConfigError
from reprolab.data.tensor_loader import tensor_loader


def label_rule(task: str, z: torch.Tensor) -> torch.Tensor:
    if task == "halfspace":
        return z[:, 0] > 0
    if task == "xor":
        return (z[:, 0] > 0) ^ (z[:, 1] > 0)
    if task == "circle":
        return (z[:, :2] ** 2).sum(1) > 2 * math.log(2)   # median of χ²₂
    if task == "parity":
        return z[:, :3].prod(1) > 0
    raise ConfigError(f"data.task={task!r}; choose halfspace, xor, circle or parity")


def random_affine(dim: int, condition_number: float, generator: torch.Generator, offset_scale: float = 3.0):
    """(A, b): A = U diag(s) Vᵀ, U and V Haar-orthogonal, s log-spaced on [1, κ] so cond(A) = κ exactly."""
    if condition_number < 1:
        raise ConfigError(f"data.condition_number={condition_number}; it must be ≥ 1")
    u, _ = torch.linalg.qr(torch.randn(dim, dim, generator=generator, dtype=torch.float64))
    v, _ = torch.linalg.qr(torch.randn(dim, dim, generator=generator, dtype=torch.float64))
    s = torch.logspace(0, math.log10(condition_number), dim, dtype=torch.float64)
    return (u * s) @ v.T, offset_scale * torch.randn(dim, generator=generator, dtype=torch.float64)


class SyntheticProbeDataModule(FullBatchSplits):
    """Full-batch train/val/test splits of (h, y). The latent draw depends on `seed`; the affine map on
    `affine_seed` (default: seed), so `affine: false/true` runs with one seed probe the same points."""

    def __init__(self, task: str = "xor", dim: int = 10, n_train: int = 2000, n_val: int = 1000, n_test: int = 4000,
                 affine: bool = False, condition_number: float = 10.0, label_noise: float = 0.05, seed: int = 0,
                 affine_seed: int | None = None, dtype: str = "float32"):
        super().__init__()
        label_rule(task, torch.zeros(1, max(dim, 3)))   # fail on a bad task name at construction
        if dim < 3:
            raise ConfigError(f"data.dim={dim}; the rules read up to 3 latent coordinates")
        self.task, self.dim, self.sizes = task, dim, (n_train, n_val, n_test)
        self.affine, self.condition_number, self.label_noise = affine, condition_number, label_noise
        self.seed, self.affine_seed = seed, seed if affine_seed is None else affine_seed
        self.dtype = getattr(torch, dtype)

    def setup(self, stage: str | None = None) -> None:
        g = torch.Generator().manual_seed(self.seed)
        z = torch.randn(sum(self.sizes), self.dim, generator=g, dtype=torch.float64)
        y = label_rule(self.task, z) ^ (torch.rand(len(z), generator=g, dtype=torch.float64) < self.label_noise)
        h = z
        if self.affine:
            a, b = random_affine(self.dim, self.condition_number, torch.Generator().manual_seed(10_007 + self.affine_seed))
            h = z @ a.T + b
        h, y = h.to(self.dtype), y.float()
        pieces = zip(torch.split(h, self.sizes), torch.split(y, self.sizes), strict=True)
        self.splits = dict(zip(("train", "val", "test"), pieces, strict=True))

    def train_inputs(self) -> torch.Tensor:
        return self.splits["train"][0]

    def _loader(self, split: str) -> DataLoader:
        x, y = self.splits[split]
        return tensor_loader(TensorDataset(x, y), len(y))   # full batch: probes are convex/small fits
