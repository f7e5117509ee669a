"""One node's sparse variational GP in the whitened parameterisation (Hensman et al. 2015, §3):
given inducing inputs Z and a draw of v (u = L_Z v, K_ZZ = L_Z L_Zᵀ), the conditional at inputs h is
    f(h) | v ~ N(A v, k(h, h) − ‖A‖²),   A = K_hZ L_Z⁻ᵀ,
evaluated per point (the likelihood factorises over points, so the marginals are all a sample needs).
"""

from __future__ import annotations

import torch
from torch import nn


class NodeGP(nn.Module):
    def __init__(self, kernel: nn.Module, inducing_inputs: torch.Tensor, jitter: float = 1e-5):
        super().__init__()
        self.kernel, self.jitter = kernel, jitter
        self.inducing_inputs = nn.Parameter(inducing_inputs.clone())

    def projection(self, h: torch.Tensor) -> torch.Tensor:
        """A = K_hZ L_Z⁻ᵀ for inputs h (..., B, d): shape (..., B, M)."""
        z = self.inducing_inputs
        kzz = self.kernel(z, z) + self.jitter * torch.eye(len(z), dtype=z.dtype, device=z.device)
        chol = torch.linalg.cholesky(kzz)
        khz = self.kernel(h, z)
        return torch.linalg.solve_triangular(chol, khz.transpose(-1, -2), upper=False).transpose(-1, -2)

    def conditional(self, h: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Mean and variance of f(h) | v, for h (S, B, d) and v (S, M): both (S, B)."""
        a = self.projection(h)
        mean = (a @ v.unsqueeze(-1)).squeeze(-1)
        var = (self.kernel.diag(h) - a.pow(2).sum(-1)).clamp_min(1e-8)
        return mean, var

    def sample(self, h: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
        mean, var = self.conditional(h, v)
        return mean + var.sqrt() * torch.randn_like(mean)
