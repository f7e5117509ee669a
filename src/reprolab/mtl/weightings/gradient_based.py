"""GradNorm and DB-MTL: weightings that read the (T, n) Jacobian to set loss scales."""

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
        return Combination(loss_weights=w, shared_grad=w @ jac)  # heads: w_t ∇L_t, GradNorm's weighted loss


class DBMTL(Weighting):
    """Dual-balancing MTL (Lin et al., 2023, Alg. 1), as the authors compute it (their LibMTL `DB_MTL`).
    Loss scale: per-task gradients of log(L_t + ε), i.e. g_t / (L_t + ε). Gradient magnitude: an EMA that starts
    at zero, b_t ← β_k b_t + (1 − β_k) ∇log L_t with β_k = β / k^σ at step k = 1, 2, … (their defaults β = 0.9,
    σ = 0: a plain EMA, so step 1 moves by (1 − β) of the first log-gradient), then every b_t is rescaled to the
    largest norm: d = Σ_t (max_j ‖b_j‖ / ‖b_t‖) b_t. Heads take the gradient of their own log-loss,
    ∇L_t / (L_t + ε). Logged weights: α_t / (L_t + ε), what multiplies g_t in d at β = 0."""

    needs_jacobian = True
    state_attributes = ("buffer", "step")

    def __init__(self, n_tasks: int, beta: float = 0.9, beta_sigma: float = 0.0, eps: float = 1e-8):
        super().__init__(n_tasks)
        if not 0.0 <= beta < 1.0:
            raise ValueError(f"DB-MTL's beta must lie in [0, 1), got {beta}")
        self.beta, self.beta_sigma, self.eps = beta, beta_sigma, eps
        self.buffer: Tensor | None = None
        self.step = 0

    def forward(self, losses: Tensor, jac: Tensor | None = None, gram: Tensor | None = None) -> Combination:
        self.check(losses, jac)
        losses = losses.detach().to(jac)
        log_grads = jac / (losses[:, None] + self.eps)
        if self.buffer is None:
            self.buffer = torch.zeros_like(log_grads)
        self.step += 1
        beta_k = self.beta / self.step**self.beta_sigma
        self.buffer = log_grads + beta_k * (self.buffer.to(log_grads) - log_grads)
        norms = self.buffer.norm(dim=1)
        alpha = norms.max() / (norms + self.eps)
        inverse = 1.0 / (losses + self.eps)
        return Combination(loss_weights=alpha * inverse, shared_grad=alpha @ self.buffer, head_weights=inverse)
