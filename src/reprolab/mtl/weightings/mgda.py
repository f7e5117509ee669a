"""MGDA (Désidéri 2012; Sener & Koltun, NeurIPS 2018, eq. 3): the shared update is the min-norm point of the
convex hull of the task gradients, d = Jᵀw with w = argmin_{w ∈ Δ} wᵀ G w, G = J Jᵀ.

The QP is solved exactly (to round-off) by Wolfe's min-norm-point algorithm (Wolfe 1976), which works on the
Gramian alone: it keeps a "corral" S of tasks whose affine minimiser lies inside their simplex, adds the task
that most violates optimality (min_j (Gw)_j < wᵀGw) and drops tasks whose weight reaches zero. It ends in
finitely many steps on the optimum, for any T (CelebA's 40), where a Frank–Wolfe loop with a step tolerance
stops early on gradients of very different norms. Solved in float64 on the Gramian scaled to unit largest
diagonal, so the weights do not depend on the gradients' scale.
"""

from __future__ import annotations

import numpy as np
import torch
from torch import Tensor

from reprolab.mtl.weightings.base import Combination, Weighting, gramian


def _affine_minimiser(G: np.ndarray, corral: list[int]) -> np.ndarray:
    """argmin ‖Σ_{i∈S} a_i g_i‖² subject to Σ a_i = 1 (the KKT system [[G_S, 1], [1ᵀ, 0]])."""
    k = len(corral)
    kkt = np.zeros((k + 1, k + 1))
    kkt[:k, :k] = G[np.ix_(corral, corral)]
    kkt[:k, k] = kkt[k, :k] = 1.0
    rhs = np.zeros(k + 1)
    rhs[k] = 1.0
    return np.linalg.lstsq(kkt, rhs, rcond=None)[0][:k]


def min_norm_weights(gram: Tensor, tol: float = 1e-12, max_iter: int = 1000) -> Tensor:
    """Weights w ∈ Δ of the min-norm point of conv{g_1..g_T}, from G = J Jᵀ (Wolfe's algorithm).

    Optimal when max_j (wᵀGw − (Gw)_j) ≤ tol · max_i G_ii. All-zero gradients give uniform weights (every point
    of the hull is the zero vector)."""
    G = gram.detach().to("cpu", torch.float64).numpy()
    T = G.shape[0]
    scale = float(G.diagonal().max()) if T else 0.0
    if T == 1 or scale <= 0.0:
        return torch.full((T,), 1.0 / T, dtype=gram.dtype, device=gram.device)
    G = G / scale
    corral, lam = [int(np.argmin(G.diagonal()))], np.ones(1)
    for _ in range(max_iter):
        gx = G[:, corral] @ lam               # g_j · x for every task j, x = Σ_S λ_i g_i
        xx = float(lam @ gx[corral])
        j = int(np.argmin(gx))
        if xx - gx[j] <= tol or j in corral:   # no task has a descent-violating gradient: x is the min-norm point
            break
        corral, lam = [*corral, j], np.append(lam, 0.0)
        for _ in range(T + 1):                 # minor cycle: move to the corral's affine minimiser, dropping tasks
            alpha = _affine_minimiser(G, corral)
            if (alpha > 1e-15).all():
                lam = alpha
                break
            drop = np.flatnonzero(alpha <= 1e-15)
            ratios = lam[drop] / (lam[drop] - alpha[drop])
            first = drop[np.argmin(ratios)]     # the task whose weight reaches zero first on the way
            lam = lam + float(ratios.min()) * (alpha - lam)
            keep = lam > 1e-15
            keep[first] = False
            corral, lam = [c for c, k in zip(corral, keep, strict=True) if k], lam[keep] / lam[keep].sum()
        if j not in corral:                    # round-off: the added task left at once; x cannot improve
            break
    weights = np.zeros(T)
    weights[corral] = lam
    return torch.as_tensor(weights, dtype=gram.dtype, device=gram.device)


class MGDA(Weighting):
    """MGDA: shared update Jᵀw at the exact min-norm point (`min_norm_weights`); heads keep their own loss."""

    needs_jacobian = True
    on_representation = True

    def __init__(self, n_tasks: int, tol: float = 1e-12, max_iter: int = 1000):
        super().__init__(n_tasks)
        self.tol, self.max_iter = tol, max_iter

    def forward(self, losses: Tensor, jac: Tensor | None = None, gram: Tensor | None = None) -> Combination:
        self.check(losses, jac)
        w = min_norm_weights(gramian(jac, gram), self.tol, self.max_iter).to(jac)
        return Combination(loss_weights=w, shared_grad=w @ jac, head_weights=torch.ones_like(w))
