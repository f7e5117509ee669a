"""GradDrop (Chen et al., NeurIPS 2020, Alg. 1): per coordinate, the positive-sign purity
P = ½(1 + Σ_t g_t / Σ_t |g_t|) decides, against one uniform draw U, which sign survives: task t keeps its
gradient there if (P > U and g_t > 0) or (P < U and g_t < 0); `leak` l_t lets l_t of the dropped part through.

Where it acts (`task.jacobian_wrt`): `params` drops coordinates of the shared-parameter Jacobian (torchjd's
reading, no batch structure); `representation` is the paper's: on the gradients w.r.t. the shared activations
z (B, …), with P from the batch sums of the sign-corrected gradients Σ_b sign(z_b) ∇_{z_b} L_t (the paper's
correction for batch-separated inputs), one mask per activation shared over the batch, and the masked per-sample
gradients back-propagated into the encoder. Heads keep their own loss.
"""

from __future__ import annotations

import torch
from torch import Tensor

from reprolab.mtl.weightings.base import Combination, Weighting


def graddrop_mask(summed: Tensor, leak: Tensor, generator: torch.Generator | None = None) -> Tensor:
    """(T, m) keep-factors l_t + (1 − l_t)·M_t from the (T, m) per-coordinate gradients that decide the sign."""
    purity = 0.5 * (1.0 + summed.sum(0) / (summed.abs().sum(0) + 1e-7))
    draw = torch.rand(purity.shape, dtype=summed.dtype, device=summed.device, generator=generator)
    keep = ((purity > draw) & (summed > 0)) | ((purity < draw) & (summed < 0))
    return leak[:, None] + (1.0 - leak[:, None]) * keep.to(summed.dtype)


class GradDrop(Weighting):
    needs_jacobian = True
    on_representation = True
    wants_representation = True  # the engine passes `representation=z` in the representation mode

    def __init__(self, n_tasks: int, leak: float | list[float] = 0.0):
        super().__init__(n_tasks)
        leak_t = torch.as_tensor(leak, dtype=torch.float32).reshape(-1).expand(n_tasks).clone()
        if ((leak_t < 0) | (leak_t > 1)).any():
            raise ValueError(f"GradDrop leak must lie in [0, 1], got {leak}")
        self.leak = leak_t

    def forward(self, losses: Tensor, jac: Tensor | None = None, gram: Tensor | None = None,
                representation: Tensor | None = None) -> Combination:
        self.check(losses, jac)
        leak = self.leak.to(jac)
        ones = torch.ones_like(losses)
        if representation is None:  # parameter Jacobian
            return Combination(loss_weights=ones, shared_grad=(graddrop_mask(jac, leak) * jac).sum(0), head_weights=ones)
        batch = representation.shape[0]
        per_sample = jac.reshape(self.n_tasks, batch, -1)                           # (T, B, m)
        sign = representation.detach().reshape(1, batch, -1).sign().to(jac)
        mask = graddrop_mask((per_sample * sign).sum(1), leak)                      # (T, m), shared over the batch
        return Combination(loss_weights=ones, shared_grad=(mask[:, None, :] * per_sample).sum(0).reshape(-1),
                           head_weights=ones)
