"""Covariance functions on a node's inputs [node-parents ..., exogenous inputs ...].

Stationary kernels (RBF, Matérn ν = 5/2, 3/2, 1/2) with ARD lengthscales act on all input dimensions; `ar1`
(Kennedy & O'Hagan 2000) is ρ² f f' + k(x, x') and `nargp` (Perdikaris et al. 2017, eq. 10) is
k_f(f, f') k_x(x, x') + k_δ(x, x'), with f the parent-node dimensions and x the exogenous ones.
"""

from __future__ import annotations

import math

import torch
from torch import nn
from torch.nn.functional import softplus

from reprolab.cli.errors import ConfigError

STATIONARY = ("rbf", "matern52", "matern32", "matern12")
KERNELS = STATIONARY + ("ar1", "nargp")


def _inv_softplus(value: float) -> float:
    return math.log(math.expm1(value))


def stationary(kind: str, r2: torch.Tensor) -> torch.Tensor:
    """Unit-variance correlation from the squared scaled distance r²."""
    if kind == "rbf":
        return torch.exp(-0.5 * r2)
    r = torch.sqrt(r2.clamp_min(1e-12))
    if kind == "matern12":
        return torch.exp(-r)
    if kind == "matern32":
        s = math.sqrt(3.0) * r
        return (1 + s) * torch.exp(-s)
    s = math.sqrt(5.0) * r
    return (1 + s + s * s / 3) * torch.exp(-s)


class Stationary(nn.Module):
    """σ² c(‖(h − h')/ℓ‖) with ARD lengthscales ℓ, over the dimensions `dims` of the input."""

    def __init__(self, kind: str, dims: list[int], lengthscale: float = 1.0, variance: float = 1.0):
        super().__init__()
        if kind not in STATIONARY:
            raise ConfigError(f"kernel '{kind}' is not one of {list(KERNELS)}")
        self.kind, self.dims = kind, list(dims)
        self.raw_lengthscale = nn.Parameter(torch.full((len(dims),), _inv_softplus(lengthscale)))
        self.raw_variance = nn.Parameter(torch.tensor(_inv_softplus(variance)))

    def _scaled(self, h: torch.Tensor) -> torch.Tensor:
        return h[..., self.dims] / softplus(self.raw_lengthscale)

    def forward(self, h1: torch.Tensor, h2: torch.Tensor) -> torch.Tensor:
        a, b = self._scaled(h1), self._scaled(h2)
        r2 = (a.pow(2).sum(-1)[..., :, None] + b.pow(2).sum(-1)[..., None, :] - 2 * a @ b.transpose(-1, -2)).clamp_min(0)
        return softplus(self.raw_variance) * stationary(self.kind, r2)

    def diag(self, h: torch.Tensor) -> torch.Tensor:
        return softplus(self.raw_variance) * torch.ones(h.shape[:-1], dtype=h.dtype, device=h.device)


class AR1(nn.Module):
    """ρ² f f' + k_δ(x, x'): the high fidelity is a scaled low fidelity plus an independent discrepancy."""

    def __init__(self, base: str, parent_dims: list[int], input_dims: list[int]):
        super().__init__()
        self.parent_dims = parent_dims
        self.raw_rho2 = nn.Parameter(torch.tensor(_inv_softplus(1.0)))
        self.delta = Stationary(base, input_dims, variance=0.1)

    def forward(self, h1, h2):
        f1, f2 = h1[..., self.parent_dims], h2[..., self.parent_dims]
        return softplus(self.raw_rho2) * f1 @ f2.transpose(-1, -2) + self.delta(h1, h2)

    def diag(self, h):
        return softplus(self.raw_rho2) * h[..., self.parent_dims].pow(2).sum(-1) + self.delta.diag(h)


class NARGP(nn.Module):
    """k_f(f, f') k_x(x, x') + k_δ(x, x') (Perdikaris et al. 2017, eq. 10)."""

    def __init__(self, base: str, parent_dims: list[int], input_dims: list[int]):
        super().__init__()
        self.k_f = Stationary(base, parent_dims)
        self.k_x = Stationary(base, input_dims, variance=1.0)
        self.delta = Stationary(base, input_dims, variance=0.1)

    def forward(self, h1, h2):
        return self.k_f(h1, h2) * self.k_x(h1, h2) + self.delta(h1, h2)

    def diag(self, h):
        return self.k_f.diag(h) * self.k_x.diag(h) + self.delta.diag(h)


def build_kernel(kind: str, n_parent_dims: int, n_input_dims: int, base: str = "rbf") -> nn.Module:
    """The kernel of one node whose input is [parent-node samples (n_parent_dims), exogenous (n_input_dims)]."""
    parent_dims = list(range(n_parent_dims))
    input_dims = list(range(n_parent_dims, n_parent_dims + n_input_dims))
    if kind in STATIONARY:
        return Stationary(kind, parent_dims + input_dims)
    if kind not in KERNELS:
        raise ConfigError(f"kernel '{kind}' is not one of {list(KERNELS)}")
    if not parent_dims or not input_dims:
        raise ConfigError(f"kernel '{kind}' needs both parent nodes and exogenous inputs (input connections)")
    return (AR1 if kind == "ar1" else NARGP)(base, parent_dims, input_dims)
