"""IMTL (Liu et al., ICLR 2021): impartial MTL, in its three variants (`variant`).

- `g` (IMTL-G, §3.2): weights α (Σα = 1) such that d = Jᵀα has the same projection on every unit task gradient,
  d·u_t = d·u_1. With G = J Jᵀ and n_t = ‖g_t‖ this is Gα ∝ n, α = G⁺n / 1ᵀG⁺n (the paper's closed form
  α_{2:T} = g_1Uᵀ(DUᵀ)⁻¹ when G is invertible; the pseudo-inverse is torchjd's generalisation to dependent rows).
- `l` (IMTL-L, §3.1): learnable scales s_t, task loss e^{s_t} L_t − s_t; s moves by its own Adam (`lr`) on
  ∂/∂s_t = e^{s_t} L_t − 1 (LibMTL steps s with the model's optimiser; ours keeps Adam/Muon/APT untouched).
  Shared gradient Σ_t e^{s_t} g_t: a loss-based method.
- `hybrid` (IMTL, §3.3, the paper's full method and LibMTL's `IMTL`): IMTL-G on the scaled gradients e^{s_t} g_t.
Heads follow their own (scaled) loss: e^{s_t} ∇L_t, i.e. ∇L_t for `g`.
"""

from __future__ import annotations

import torch
from torch import Tensor, nn

from reprolab.mtl.weightings.base import Combination, Weighting, gramian, inner_adam

VARIANTS = ("g", "l", "hybrid")


def imtl_g_weights(gram: Tensor) -> Tensor:
    """α = G⁺n / 1ᵀG⁺n with n_t = ‖g_t‖ (zero if the pseudo-inverse gives no direction)."""
    v = torch.linalg.pinv(gram) @ gram.diagonal().clamp_min(0).sqrt()
    total = v.sum()
    return torch.zeros_like(v) if total.abs() < 1e-12 * v.abs().sum().clamp_min(1e-30) else v / total


class IMTL(Weighting):
    on_representation = True

    def __init__(self, n_tasks: int, variant: str = "g", lr: float = 1e-2):
        super().__init__(n_tasks)
        if variant not in VARIANTS:
            raise ValueError(f"IMTL variant {variant!r} is not one of {', '.join(VARIANTS)}")
        self.variant = variant
        self.needs_jacobian = variant != "l"
        self.on_representation = variant != "l"
        if variant != "g":
            self.log_scale = nn.Parameter(torch.zeros(n_tasks))
            self.opt = inner_adam([self.log_scale], lr=lr)

    def _scales(self, losses: Tensor) -> Tensor:
        """e^{s} before this step's update of s (the scales that weighed this step's losses)."""
        scale = self.log_scale.detach().exp().to(losses)
        with torch.enable_grad():
            self.opt.zero_grad()
            (self.log_scale.exp() * losses.to(self.log_scale) - self.log_scale).sum().backward()
            self.opt.step()
        return scale

    def forward(self, losses: Tensor, jac: Tensor | None = None, gram: Tensor | None = None) -> Combination:
        self.check(losses, jac)
        losses = losses.detach()
        if self.variant == "l":
            scale = self._scales(losses)
            return Combination(loss_weights=scale, head_weights=scale)
        gram = gramian(jac, gram)
        scale = torch.ones_like(losses) if self.variant == "g" else self._scales(losses)
        alpha = imtl_g_weights(scale[:, None] * gram * scale[None, :])
        weights = (alpha * scale).to(jac)
        return Combination(loss_weights=weights, shared_grad=weights @ jac, head_weights=scale.to(jac))
