"""Kolmogorov–Arnold network with B-spline edges (Liu et al. 2024, "KAN", §2.2, Eq. 2.10).

Each edge carries phi(x) = w_b * b(x) + w_s * sum_c c_c B_c(x): a fixed base activation b plus a
degree-k B-spline on a uniform grid of `grid` intervals over `grid_range`, extended by k knots on each
side. Node j of the next layer sums its incoming edges. The basis is computed for all edges at once
(Cox–de Boor recursion on a (batch, in, knots) tensor); `bspline_basis_reference` is the scalar
recursion it is tested against.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import torch
from torch import nn

BASE_ACTIVATIONS = {"silu": nn.SiLU, "tanh": nn.Tanh, "identity": nn.Identity, "zero": None}


def uniform_knots(grid: int, degree: int, grid_range: Sequence[float]) -> torch.Tensor:
    """grid + 2*degree + 1 knots: `grid` equal intervals on grid_range, `degree` more on each side."""
    lo, hi = float(grid_range[0]), float(grid_range[1])
    h = (hi - lo) / grid
    return torch.arange(-degree, grid + degree + 1, dtype=torch.get_default_dtype()) * h + lo


def bspline_basis(x: torch.Tensor, knots: torch.Tensor, degree: int) -> torch.Tensor:
    """All len(knots)-degree-1 B-spline bases of `degree` at x (any shape) → x.shape + (n_bases,)."""
    x = x.unsqueeze(-1)
    basis = ((x >= knots[:-1]) & (x < knots[1:])).to(x.dtype)
    for p in range(1, degree + 1):
        left = (x - knots[: -(p + 1)]) / (knots[p:-1] - knots[: -(p + 1)])
        right = (knots[p + 1:] - x) / (knots[p + 1:] - knots[1:-p])
        basis = left * basis[..., :-1] + right * basis[..., 1:]
    return basis


def bspline_basis_reference(x: float, knots: Sequence[float], i: int, degree: int) -> float:
    """B_{i,degree}(x) by the scalar Cox–de Boor recursion (de Boor 1978), the readable reference."""
    if degree == 0:
        return 1.0 if knots[i] <= x < knots[i + 1] else 0.0
    left = (x - knots[i]) / (knots[i + degree] - knots[i]) * bspline_basis_reference(x, knots, i, degree - 1)
    right = (knots[i + degree + 1] - x) / (knots[i + degree + 1] - knots[i + 1])
    return left + right * bspline_basis_reference(x, knots, i + 1, degree - 1)


class KANLayer(nn.Module):
    """in_features → out_features; y_j = sum_i w_b[j,i] b(x_i) + w_s[j,i] sum_c coef[j,i,c] B_c(x_i)."""

    def __init__(self, in_features: int, out_features: int, grid: int = 5, degree: int = 3,
                 grid_range: Sequence[float] = (-1.0, 1.0), base_activation: str = "silu",
                 noise_scale: float = 0.1):
        super().__init__()
        if base_activation not in BASE_ACTIVATIONS:
            raise ValueError(f"base_activation '{base_activation}' is not one of {sorted(BASE_ACTIVATIONS)}")
        if grid < 1 or degree < 0 or not grid_range[1] > grid_range[0]:
            raise ValueError(f"KAN needs grid >= 1, degree >= 0 and grid_range lo < hi; got {grid}, {degree}, {grid_range}")
        self.in_features, self.out_features, self.degree = in_features, out_features, degree
        self.register_buffer("knots", uniform_knots(grid, degree, grid_range))
        activation = BASE_ACTIVATIONS[base_activation]
        self.base = activation() if activation is not None else None
        self.coef = nn.Parameter(torch.randn(out_features, in_features, grid + degree) * noise_scale / math.sqrt(in_features))
        self.scale_base = nn.Parameter(torch.randn(out_features, in_features) / math.sqrt(in_features))
        self.scale_spline = nn.Parameter(torch.ones(out_features, in_features))

    def edge_functions(self, x: torch.Tensor) -> torch.Tensor:
        """phi_{j,i}(x_i) for every edge: (..., in) → (..., out, in); `forward` sums it over i."""
        spline = torch.einsum("...ic,oic->...oi", bspline_basis(x, self.knots, self.degree), self.coef)
        out = self.scale_spline * spline
        if self.base is not None:
            out = out + self.scale_base * self.base(x).unsqueeze(-2)
        return out

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        basis = bspline_basis(x, self.knots, self.degree).flatten(-2)           # (..., in * n_bases)
        weight = (self.scale_spline.unsqueeze(-1) * self.coef).flatten(1)        # (out, in * n_bases)
        y = basis @ weight.T
        if self.base is not None:
            y = y + self.base(x) @ self.scale_base.T
        return y


class KAN(nn.Module):
    """A stack of KAN layers of `widths` (e.g. [3, 10, 5]: a two-layer KAN). `inner(x)` gives the
    first layer's node values, the inner functions g_q(x) = sum_p phi_{q,p}(x_p)."""

    def __init__(self, widths: Sequence[int], grid: int = 5, degree: int = 3,
                 grid_range: Sequence[float] = (-1.0, 1.0), base_activation: str = "silu"):
        super().__init__()
        if len(widths) < 2:
            raise ValueError(f"KAN widths need at least an input and an output size; got {list(widths)}")
        self.layers = nn.ModuleList(
            KANLayer(a, b, grid, degree, grid_range, base_activation) for a, b in zip(widths[:-1], widths[1:], strict=False))

    def inner(self, x: torch.Tensor) -> torch.Tensor:
        return self.layers[0](x)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        for layer in self.layers:
            x = layer(x)
        return x
