"""CAGrad (Liu et al., NeurIPS 2021, Alg. 1 and eq. 5), as the authors' code (Cranial-XIX/CAGrad) computes it.

g_0 = mean_t g_t; w = argmin_{w ∈ Δ} g_wᵀ g_0 + c‖g_0‖ ‖g_w‖ (g_w = Jᵀw); d = g_0 + (c‖g_0‖ / ‖g_w‖) g_w, then
`rescale`d as in their code: 0 → d, 1 → d / (1 + c²) (their NYUv2/Cityscapes setting and our default),
2 → d / (1 + c). The dual is solved by SLSQP (scipy's `minimize`, the authors' solver) with the exact gradient,
on the Gramian divided by its trace so that the weights do not depend on the gradients' scale (the authors'
+1e-8 guards do, which is what made small gradients matter). The update is zero only where the paper's is:
when g_0 = 0 (the ball of radius c‖g_0‖ is the point 0) or J = 0. When 0 lies in the hull (g_w = 0 at the
optimum: Pareto-stationary) the direction g_w is undefined and d = g_0, the limit the authors' code takes.
Heads keep their own loss.
"""

from __future__ import annotations

import numpy as np
import torch
from scipy.optimize import minimize
from torch import Tensor

from reprolab.mtl.weightings.base import Combination, Weighting, gramian

RESCALE = {0: lambda c: 1.0, 1: lambda c: 1.0 + c**2, 2: lambda c: 1.0 + c}


def cagrad_weights(gram: Tensor, c: float, rescale: int = 1) -> Tensor:
    """Task weights a with d = Jᵀa: a = (1/T + λ w) / rescale, λ = c‖g_0‖/‖g_w‖."""
    T = gram.shape[0]
    G = gram.detach().to("cpu", torch.float64).numpy()
    trace = float(np.trace(G))
    if trace <= 0.0:
        return torch.zeros(T, dtype=gram.dtype, device=gram.device)
    G = G / trace
    mean_dot = G.mean(axis=1)                    # G 1/T = J g_0: the linear term's gradient
    radius = c * float(np.sqrt(max(G.mean(), 0.0)))  # c ‖g_0‖
    weights = np.full(T, 1.0 / T)
    if radius > 0.0:
        def objective(w):
            norm = np.sqrt(max(w @ G @ w, 1e-30))
            return w @ mean_dot + radius * norm, mean_dot + radius * (G @ w) / norm

        res = minimize(objective, np.full(T, 1.0 / T), jac=True, method="SLSQP", bounds=[(0.0, 1.0)] * T,
                       constraints=({"type": "eq", "fun": lambda w: w.sum() - 1.0, "jac": lambda w: np.ones(T)},),
                       options={"ftol": 1e-14, "maxiter": 1000})
        w = np.clip(res.x, 0.0, None)
        w = w / w.sum()
        gw_norm = float(np.sqrt(max(w @ G @ w, 0.0)))
        if gw_norm > 1e-12:
            weights = weights + radius / gw_norm * w
    return torch.as_tensor(weights / RESCALE[rescale](c), dtype=gram.dtype, device=gram.device)


class CAGrad(Weighting):
    needs_jacobian = True
    on_representation = True

    def __init__(self, n_tasks: int, c: float = 0.4, rescale: int = 1):
        super().__init__(n_tasks)
        if c < 0:
            raise ValueError(f"CAGrad's c must be >= 0, got {c}")
        if rescale not in RESCALE:
            raise ValueError(f"CAGrad rescale {rescale!r} is not one of 0 (none), 1 (1 + c²), 2 (1 + c)")
        self.c, self.rescale = c, rescale

    def forward(self, losses: Tensor, jac: Tensor | None = None, gram: Tensor | None = None) -> Combination:
        self.check(losses, jac)
        w = cagrad_weights(gramian(jac, gram), self.c, self.rescale).to(jac)
        return Combination(loss_weights=w, shared_grad=w @ jac, head_weights=torch.ones_like(w))
