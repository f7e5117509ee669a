"""Fixed input maps fitted on the training representations before a probe sees them.

`whiten` is the affine-equivariant choice (Lee & Kondor §1: probes stable under affine changes of hidden
coordinates): two representations related by h' = A h + b whiten to coordinates that differ by an
orthogonal map, so any penalty or optimiser that only sees inner products is unaffected. `standardize`
(per-coordinate z-scores) and `none` are coordinate-dependent and serve the control probes.
"""

from __future__ import annotations

import torch
from torch import nn

from reprolab.cli.errors import ConfigError

KINDS = ("whiten", "standardize", "none")


class FittedInputMap(nn.Module):
    """x ↦ (x − mean) @ W: W = Σ^{-1/2} restricted to the non-null eigenspace (whiten), diag(1/σ) or I."""

    def __init__(self, dim: int, kind: str = "whiten", rel_eig_floor: float = 1e-8):
        super().__init__()
        if kind not in KINDS:
            raise ConfigError(f"preprocess={kind!r}; choose one of {', '.join(KINDS)}")
        self.kind, self.rel_eig_floor = kind, rel_eig_floor
        self.register_buffer("mean", torch.zeros(dim))
        self.register_buffer("matrix", torch.eye(dim))

    @torch.no_grad()
    def fit(self, x: torch.Tensor) -> FittedInputMap:
        x = x.to(self.mean.dtype)
        if self.kind == "none":
            return self
        self.mean.copy_(x.mean(0))
        centred = x - self.mean
        if self.kind == "standardize":
            self.matrix.copy_(torch.diag(1.0 / centred.std(0).clamp_min(1e-12)))
            return self
        cov = centred.T @ centred / (len(x) - 1)
        eigval, eigvec = torch.linalg.eigh(cov.double())
        keep = eigval > self.rel_eig_floor * eigval.max()   # dead units span a null space: drop it, keep the rest exact
        scale = torch.where(keep, eigval.clamp_min(1e-300).rsqrt(), torch.zeros_like(eigval))
        self.matrix.copy_((eigvec * scale) @ eigvec.T)     # symmetric (ZCA) inverse square root
        return self

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return (x - self.mean) @ self.matrix
