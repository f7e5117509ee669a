"""Aligned-MTL (Senushkin et al., CVPR 2023, Alg. 1), as the authors' code (SamsungLabs/MTL) computes it.

With G = J Jᵀ = V Λ Vᵀ (eigenvalues above the rank cut, largest first), the balance transformation is
B = √λ_min · V Λ^{-1/2} Vᵀ, which makes the aligned gradients Bᵀ-rotated rows of J orthogonal with equal norm
√λ_min (eq. 9–10). The update is their *sum*, d = Jᵀ B 1, with task weights w = B 1 (the authors sum; torchjd
divides by T). The rank cut is the authors': λ > λ_max · T · eps with eps = float32's machine epsilon (their
torch.finfo() default), whatever dtype the Gramian is in; a float64 eps would keep eigenvalues of ~1e-9 λ_max
from near-parallel gradients and shrink the update by √(λ_min/λ_max). `scale_mode`: `min` (the paper and the
authors' default), `median` or `rmse` (mean eigenvalue) as in their code. Heads keep their own loss (their
`scale_decoder_grad=False` default).
"""

from __future__ import annotations

import torch
from torch import Tensor

from reprolab.mtl.weightings.base import Combination, Weighting, gramian

SCALE_MODES = ("min", "median", "rmse")


def aligned_weights(gram: Tensor, scale_mode: str = "min", eps: float = torch.finfo(torch.float32).eps) -> Tensor:
    """w = B 1 with B = √λ_scale · V Λ^{-1/2} Vᵀ over the eigenpairs above λ_max · T · eps."""
    lam, vecs = torch.linalg.eigh(gram)
    keep = lam > lam.max() * gram.shape[0] * eps
    if not keep.any():  # all gradients zero: nothing to align
        return torch.zeros(gram.shape[0], dtype=gram.dtype, device=gram.device)
    lam, vecs = lam[keep], vecs[:, keep]
    scale = {"min": lam.min(), "median": lam.median(), "rmse": lam.mean()}[scale_mode]
    balance = scale.sqrt() * (vecs / lam.sqrt()) @ vecs.T
    return balance.sum(dim=1)


class AlignedMTL(Weighting):
    needs_jacobian = True
    on_representation = True

    def __init__(self, n_tasks: int, scale_mode: str = "min", eps: float = torch.finfo(torch.float32).eps):
        super().__init__(n_tasks)
        if scale_mode not in SCALE_MODES:
            raise ValueError(f"Aligned-MTL scale_mode {scale_mode!r} is not one of {', '.join(SCALE_MODES)}")
        self.scale_mode, self.eps = scale_mode, eps

    def forward(self, losses: Tensor, jac: Tensor | None = None, gram: Tensor | None = None) -> Combination:
        self.check(losses, jac)
        w = aligned_weights(gramian(jac, gram), self.scale_mode, self.eps).to(jac)
        return Combination(loss_weights=w, shared_grad=w @ jac, head_weights=torch.ones_like(w))
