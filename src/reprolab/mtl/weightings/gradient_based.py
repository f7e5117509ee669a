"""Gradient-based weightings torchjd does not provide: GradNorm and DB-MTL. Both read the (T, n) Jacobian."""

from __future__ import annotations

import torch
from torch import Tensor, nn

from reprolab.mtl.weightings.base import Combination, Weighting, inner_adam


class GradNorm(Weighting):
    """GradNorm (Chen et al., ICML 2018, eqs. 1–2). Learnable w_t (sum T); G_t = ‖w_t g_t‖ over the shared
    parameters (as LibMTL does, not only the last shared layer); r_t = (L_t/L_t(0)) / mean; the weights
    take one step of their own Adam (`lr`) on Σ_t |G_t − mean(G)·r_t^α| with the target held constant, then
    are renormalised to sum T. The returned direction uses the weights before that step."""

    needs_jacobian = True
    state_attributes = ("initial",)

    def __init__(self, n_tasks: int, alpha: float = 1.5, lr: float = 1e-2):
        super().__init__(n_tasks)
        self.alpha = alpha
        self.weights = nn.Parameter(torch.ones(n_tasks))
        self.opt = inner_adam([self.weights], lr=lr)
        self.initial: Tensor | None = None

    def forward(self, losses: Tensor, jac: Tensor | None = None, gram: Tensor | None = None) -> Combination:
        self.check(losses, jac)
        losses = losses.detach().to(self.weights)
        if self.initial is None:
            self.initial = losses.clone()
        w = self.weights.detach().clone()
        norms = jac.detach().norm(dim=1).to(self.weights)
        with torch.enable_grad():
            g = self.weights * norms
            ratio = losses / self.initial
            target = (g.mean() * (ratio / ratio.mean()) ** self.alpha).detach()
            self.opt.zero_grad()
            (g - target).abs().sum().backward()
            self.opt.step()
        with torch.no_grad():
            self.weights.clamp_(min=1e-6)
            self.weights.mul_(self.n_tasks / self.weights.sum())
        w = w.to(jac)
        return Combination(loss_weights=w, shared_grad=w @ jac)


class DBMTL(Weighting):
    """Dual-balancing MTL (Lin et al., 2023). Loss scale: per-task gradients of log L_t (= g_t / L_t).
    Gradient magnitude: an EMA b_t ← β_k b_t + (1−β_k) ∇log L_t with β_k = β / k^σ, then every b_t is
    rescaled to the largest norm: d = Σ_t (max_j ‖b_j‖ / ‖b_t‖) b_t. Heads get weights α_t / L_t."""

    needs_jacobian = True
    state_attributes = ("buffer", "step")

    def __init__(self, n_tasks: int, beta: float = 0.9, beta_sigma: float = 0.5, eps: float = 1e-8):
        super().__init__(n_tasks)
        self.beta, self.beta_sigma, self.eps = beta, beta_sigma, eps
        self.buffer: Tensor | None = None
        self.step = 0

    def forward(self, losses: Tensor, jac: Tensor | None = None, gram: Tensor | None = None) -> Combination:
        self.check(losses, jac)
        losses = losses.detach()
        log_grads = jac / (losses[:, None] + self.eps)
        self.step += 1
        if self.buffer is None:
            self.buffer = log_grads.clone()
        else:
            beta_k = self.beta / self.step**self.beta_sigma
            self.buffer = log_grads + beta_k * (self.buffer - log_grads)
        norms = self.buffer.norm(dim=1)
        alpha = norms.max() / (norms + self.eps)
        return Combination(loss_weights=alpha / (losses + self.eps), shared_grad=alpha @ self.buffer)
