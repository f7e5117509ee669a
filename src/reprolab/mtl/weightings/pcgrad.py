"""PCGrad (Yu et al., NeurIPS 2020, Alg. 1): each task gradient g_i^PC starts at g_i and, for the tasks j in a
random order, loses its component along g_j whenever g_i^PC · g_j < 0: g_i^PC ← g_i^PC − (g_i^PC·g_j / ‖g_j‖²) g_j.
The update is Σ_i g_i^PC. `include_self=True` (the authors' code, its PyTorch port and LibMTL) lets j run over
*every* task, i itself included: once earlier projections have turned g_i^PC against its own g_i, that part is
removed too. `include_self=False` skips j = i (torchjd's PCGrad). Worked on the Gramian (the projections are
linear in the task gradients, so g_i^PC = Σ_j a_ij g_j). Heads keep their own loss.
"""

from __future__ import annotations

import torch
from torch import Tensor

from reprolab.mtl.weightings.base import Combination, Weighting, gramian


def pcgrad_weights(gram: Tensor, include_self: bool = True, generator: torch.Generator | None = None) -> Tensor:
    """Task weights a with Σ_i g_i^PC = Jᵀa (one random order per task i, drawn from torch's RNG)."""
    G = gram.detach().to("cpu", torch.float64)
    T = G.shape[0]
    total = torch.zeros(T, dtype=torch.float64)
    for i in range(T):
        a = torch.zeros(T, dtype=torch.float64)
        a[i] = 1.0
        for j in torch.randperm(T, generator=generator).tolist():
            if (j == i and not include_self) or G[j, j] <= 0:
                continue
            dot = G[j] @ a                                  # g_i^PC · g_j
            if dot < 0:
                a[j] -= dot / G[j, j]
        total += a
    return total.to(gram)


class PCGrad(Weighting):
    needs_jacobian = True
    on_representation = True

    def __init__(self, n_tasks: int, include_self: bool = True):
        super().__init__(n_tasks)
        self.include_self = include_self

    def forward(self, losses: Tensor, jac: Tensor | None = None, gram: Tensor | None = None) -> Combination:
        self.check(losses, jac)
        w = pcgrad_weights(gramian(jac, gram), self.include_self).to(jac)
        return Combination(loss_weights=w, shared_grad=w @ jac, head_weights=torch.ones_like(w))
