"""The probe families (Lee & Kondor, arXiv 2605.11448): the coordinate-stable hierarchy and its controls.

Stable: degree 1 (linear) and degree 2 (full symmetric quadratic form, or its low-rank CP form), each on
whitened coordinates with an intercept. Controls, tied to the coordinates: L1-sparse linear on
standardised coordinates and a linear readout of fixed random ReLU features (the axis-aligned tree control is
scikit-learn's CART, `model=probe_tree` with `task=sklearn_estimator`). Every probe returns one logit per row.
"""

from __future__ import annotations

import torch
from torch import nn

from experiments.probes.whitening import FittedInputMap
from reprolab.cli.errors import ConfigError


class Probe(nn.Module):
    """A fitted input map, then `score`; `penalty` never touches the intercept."""

    def __init__(self, dim: int, preprocess: str, l2: float = 0.0, l1: float = 0.0):
        super().__init__()
        if l2 < 0 or l1 < 0:
            raise ConfigError(f"model.l2={l2}, model.l1={l1}: penalties must be ≥ 0")
        self.dim, self.l2, self.l1 = dim, l2, l1
        self.inputs = FittedInputMap(dim, preprocess)
        self.intercept = nn.Parameter(torch.zeros(()))

    def fit_inputs(self, x: torch.Tensor) -> None:
        self.inputs.fit(x)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.score(self.inputs(x)) + self.intercept

    def penalty(self) -> torch.Tensor:
        """l2·‖θ‖² + l1·‖θ‖₁ over every weight but the intercept, in the probe's own (post-map) coordinates."""
        weights = [p for name, p in self.named_parameters() if name != "intercept"]
        return self.l2 * sum((w**2).sum() for w in weights) + self.l1 * sum(w.abs().sum() for w in weights)


class LinearProbe(Probe):
    """f(x) = wᵀx̃ + c (degree 1)."""

    def __init__(self, dim: int, preprocess: str = "whiten", l2: float = 0.0, l1: float = 0.0):
        super().__init__(dim, preprocess, l2, l1)
        self.weight = nn.Parameter(torch.zeros(dim))

    def score(self, x):
        return x @ self.weight


class QuadraticProbe(Probe):
    """f(x) = x̃ᵀQx̃ + wᵀx̃ + c (degree 2). rank=None: Q symmetric and full (d(d+1)/2 free entries);
    rank=r: the CP form Q = Σ_k λ_k u_k u_kᵀ, f = Σ_k λ_k (u_kᵀx̃)² + wᵀx̃ + c, with r(d+1) parameters."""

    def __init__(self, dim: int, rank: int | None = None, preprocess: str = "whiten", l2: float = 0.0,
                 init_scale: float = 0.1, init_seed: int = 0):
        super().__init__(dim, preprocess, l2)
        if rank is not None and rank < 1:
            raise ConfigError(f"model.rank={rank}; use a positive rank, or null for the full quadratic form")
        self.rank = rank
        self.weight = nn.Parameter(torch.zeros(dim))
        if rank is None:
            self.quadratic = nn.Parameter(torch.zeros(dim, dim))   # zero start: the full form's fit is basis-free
        else:
            g = torch.Generator().manual_seed(init_seed)            # CP factors need a non-zero start
            self.factors = nn.Parameter(init_scale * torch.randn(rank, dim, generator=g) / dim**0.5)
            self.coefficients = nn.Parameter(init_scale * torch.randn(rank, generator=g))

    def quadratic_form(self) -> torch.Tensor:
        if self.rank is None:
            return (self.quadratic + self.quadratic.T) / 2
        return torch.einsum("k,ki,kj->ij", self.coefficients, self.factors, self.factors)

    def score(self, x):
        if self.rank is None:
            quad = torch.einsum("ni,ij,nj->n", x, self.quadratic_form(), x)
        else:
            quad = ((x @ self.factors.T) ** 2) @ self.coefficients
        return quad + x @ self.weight


class ReLUFeatureProbe(Probe):
    """f(x) = aᵀ relu(Rx̃ + β) + c with R, β fixed Gaussian draws (seeded) on standardised raw coordinates."""

    def __init__(self, dim: int, width: int = 256, preprocess: str = "standardize", l2: float = 0.0,
                 feature_seed: int = 0):
        super().__init__(dim, preprocess, l2)
        g = torch.Generator().manual_seed(feature_seed)
        self.register_buffer("projection", torch.randn(width, dim, generator=g) / dim**0.5)
        self.register_buffer("offset", torch.randn(width, generator=g))
        self.weight = nn.Parameter(torch.zeros(width))

    def score(self, x):
        return torch.relu(x @ self.projection.T + self.offset) @ self.weight
