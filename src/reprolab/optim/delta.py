"""DeltaSGD and DeltaAdamW: the first-moment buffer as a delta-rule associative memory (DeltaMomentum).

The usual momentum buffer is an EMA of gradients, one decay β for every direction. For a linear weight
the per-sample gradient is rank-1, g = δ xᵀ (key x = layer input, value δ = output error), so the buffer
M can be read as a linear associative memory and updated by the delta rule. Averaged over the N keys of
a step (batch form, paper §3, eq. "delta momentum"):

    M ← β·M − η·M·C + κ·G,        C = XᵀX / N,  G = ∇_W L                      (1)
    gated form:  M ← β·M·(I − η·C) + κ·G                                       (1')

κ = 1 − β by default, so η = 0 is exactly the EMA. Each input eigendirection i of C gets the memory
horizon τᵢ = 1 / ((1 − β) + η·λᵢ): directions the inputs query often are forgotten fast, rare ones are
kept long. The expected fixed point of (1) is M* = κ·G·((1 − β)·I + η·C)⁻¹ (2), a Tikhonov-regularised
Wiener predictor of the gradient — an input-side natural-gradient preconditioner without any inverse.

Stability needs |β − η·λmax(C)| < 1. ``eta_scale`` picks how η is made scale-free: "lmax" divides C by
λ̂max — exact ``eigvalsh`` for d_in ≤ ``exact_eig_max_dim``, else warm-started power iteration until the
residual is ≤ ``power_tol``·λ̂ (at most ``power_iters`` mat-vecs) — so η is the decay added to the top key
direction (stable for η < 1 + β), "trace" divides by tr C ≥ λmax (always stable for η < 1 + β, but η/d per
direction for isotropic keys), "none" uses C as it is. ``max_eta_lambda`` (off by default: the paper
states no such clip) caps the applied η_eff·λmax(Ĉ) of every keyed weight.

Only weights of nn.Linear / nn.Conv2d layers hold keys; every other parameter (biases, norms, embeddings,
the LM head by default — ``exclude``) keeps the plain EMA. Base optimizers (the second moment, weight
decay, bias correction) are exactly torch's. Each optimizer has a readable per-tensor reference path and a
``foreach`` path (batched Gram products, torch._foreach_* updates); tests hold them equal.
"""

from __future__ import annotations

import math

import torch
from torch import nn

from reprolab.optim.delta_memory import (  # noqa: F401  (resolve_kappa and the choices are part of this API)
    ETA_SCALES,
    KAPPAS,
    DeltaMomentumBase,
    _update_memory,
    _update_memory_foreach,
    resolve_kappa,
)


class DeltaAdamW(DeltaMomentumBase):
    """AdamW whose first moment follows eq. (1); second moment, bias correction and decoupled weight decay
    unchanged: W ← (1 − lr·wd)·W − lr·M̂ / (√v̂ + ε), M̂ = M / (1 − β₁ᵗ), v̂ = v / (1 − β₂ᵗ)."""

    def __init__(self, model: nn.Module, lr: float = 1e-3, betas=(0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 0.01, eta: float = 0.5, kappa: str | float = "1-beta",
                 gated: bool = False, eta_scale: str = "lmax", power_iters: int = 100, power_tol: float = 1e-3,
                 exact_eig_max_dim: int = 256, max_eta_lambda: float | None = None,
                 exclude=("lm_head",), share_grams: bool = True, max_keys: int | None = None,
                 foreach: bool = True):
        defaults = dict(lr=lr, betas=tuple(betas), eps=eps, weight_decay=weight_decay, eta=eta,
                        kappa=kappa, gated=gated)
        super().__init__(model, defaults, eta_scale=eta_scale, power_iters=power_iters, power_tol=power_tol,
                         exact_eig_max_dim=exact_eig_max_dim, max_eta_lambda=max_eta_lambda,
                         exclude=exclude, share_grams=share_grams, foreach=foreach, max_keys=max_keys)

    @torch.no_grad()
    def step(self, closure=None):
        loss = None
        if closure is not None:
            with torch.enable_grad():
                loss = closure()
        buffers = {}
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                st = self.state[p]
                if not st:
                    st["step"] = 0
                    st["exp_avg"] = torch.zeros_like(p, memory_format=torch.preserve_format)
                    st["exp_avg_sq"] = torch.zeros_like(p, memory_format=torch.preserve_format)
                buffers[p] = st["exp_avg"]
        recalls = self._recalls(buffers)
        for group in self.param_groups:
            params = [p for p in group["params"] if p.grad is not None]
            if params:
                (self._group_foreach if self.foreach else self._group_reference)(group, params, recalls)
        self._finish_step()
        return loss

    def _hyper(self, group):
        beta1, beta2 = group["betas"]
        eta_eff = self._eta_eff(group)
        return beta1, beta2, resolve_kappa(group["kappa"], beta1, eta_eff), eta_eff

    def _group_reference(self, group, params, recalls):
        beta1, beta2, kappa, eta_eff = self._hyper(group)
        lr, wd, eps = group["lr"], group["weight_decay"], group["eps"]
        for p in params:
            st = self.state[p]
            st["step"] += 1
            g, m, v = p.grad, st["exp_avg"], st["exp_avg_sq"]
            _update_memory(m, g, recalls.get(p), beta1, kappa, eta_eff)  # eq. (1)
            v.mul_(beta2).addcmul_(g, g, value=1.0 - beta2)
            p.mul_(1.0 - lr * wd)
            bc1 = 1.0 - beta1 ** st["step"]
            bc2_sqrt = math.sqrt(1.0 - beta2 ** st["step"])
            denom = (v.sqrt() / bc2_sqrt).add_(eps)
            p.addcdiv_(m, denom, value=-lr / bc1)

    def _group_foreach(self, group, params, recalls):
        beta1, beta2, kappa, eta_eff = self._hyper(group)
        lr, wd, eps = group["lr"], group["weight_decay"], group["eps"]
        states = [self.state[p] for p in params]
        gs = [p.grad for p in params]
        ms = [s["exp_avg"] for s in states]
        vs = [s["exp_avg_sq"] for s in states]
        keyed = [s["exp_avg"] for p, s in zip(params, states, strict=True) if p in recalls]
        _update_memory_foreach(ms, gs, keyed, [recalls[p] for p in params if p in recalls],
                               beta1, kappa, eta_eff)
        torch._foreach_mul_(vs, beta2)
        torch._foreach_addcmul_(vs, gs, gs, 1.0 - beta2)
        if wd != 0:
            torch._foreach_mul_(params, 1.0 - lr * wd)
        for s in states:
            s["step"] += 1
        step_sizes = [-lr / (1.0 - beta1 ** s["step"]) for s in states]
        bc2_sqrts = [math.sqrt(1.0 - beta2 ** s["step"]) for s in states]
        denom = torch._foreach_sqrt(vs)
        torch._foreach_div_(denom, bc2_sqrts)
        torch._foreach_add_(denom, eps)
        torch._foreach_addcdiv_(params, ms, denom, step_sizes)


class DeltaSGD(DeltaMomentumBase):
    """SGD whose momentum buffer follows eq. (1): W ← W − lr·M.

    Nesterov steps along the look-ahead of the next buffer, eq. (1) applied once more with this step's G
    and Ĉ: W ← W − lr·(κ·G + β·M − η_eff·M·Ĉ). With η = 0 and κ = 1 it is torch's G + β·M; leaving out
    the delta term would look ahead with the EMA that this optimizer replaces. Weight decay is coupled (added to G) as in torch.optim.SGD. The default κ = "1" is torch's undampened
    buffer, so η = 0 is torch.optim.SGD(momentum=β) step for step and the same lr carries over;
    κ = "1-beta" is the EMA convention of the paper's eq. (1) (lr then needs a 1/(1−β) rescale).
    """

    def __init__(self, model: nn.Module, lr: float = 0.1, momentum: float = 0.9, weight_decay: float = 0.0,
                 nesterov: bool = False, eta: float = 0.5, kappa: str | float = "1", gated: bool = False,
                 eta_scale: str = "lmax", power_iters: int = 100, power_tol: float = 1e-3,
                 exact_eig_max_dim: int = 256, max_eta_lambda: float | None = None, exclude=("lm_head",),
                 share_grams: bool = True, max_keys: int | None = None, foreach: bool = True):
        defaults = dict(lr=lr, momentum=momentum, weight_decay=weight_decay, nesterov=nesterov, eta=eta,
                        kappa=kappa, gated=gated)
        super().__init__(model, defaults, eta_scale=eta_scale, power_iters=power_iters, power_tol=power_tol,
                         exact_eig_max_dim=exact_eig_max_dim, max_eta_lambda=max_eta_lambda,
                         exclude=exclude, share_grams=share_grams, foreach=foreach, max_keys=max_keys)

    @torch.no_grad()
    def step(self, closure=None):
        loss = None
        if closure is not None:
            with torch.enable_grad():
                loss = closure()
        buffers = {p: self.state[p]["momentum_buffer"] for group in self.param_groups
                   for p in group["params"] if p.grad is not None and "momentum_buffer" in self.state[p]}
        recalls = self._recalls(buffers)
        for group in self.param_groups:
            params = [p for p in group["params"] if p.grad is not None]
            if params:
                (self._group_foreach if self.foreach else self._group_reference)(group, params, recalls)
        self._finish_step()
        return loss

    def _hyper(self, group):
        beta, eta_eff = group["momentum"], self._eta_eff(group)
        return beta, resolve_kappa(group["kappa"], beta, eta_eff), eta_eff

    def _look_ahead(self, g, m, beta, kappa, eta_eff, recall):
        """Nesterov: κ·G + β·M − η_eff·M·Ĉ, the next buffer of eq. (1) (see the class docstring)."""
        ahead = g.mul(kappa).add_(m, alpha=beta)
        return ahead if recall is None else ahead.sub_(recall, alpha=eta_eff)

    def _group_reference(self, group, params, recalls):
        beta, kappa, eta_eff = self._hyper(group)
        for p in params:
            g = p.grad if group["weight_decay"] == 0 else p.grad.add(p, alpha=group["weight_decay"])
            st = self.state[p]
            if "momentum_buffer" not in st:  # M₀ = 0, so M₁ = κ·G (torch: clone(G) for κ = 1)
                st["momentum_buffer"] = torch.mul(g, kappa).detach()
            else:
                m = st["momentum_buffer"]
                m.mul_(beta).add_(g, alpha=kappa)
                if p in recalls:
                    m.sub_(recalls[p], alpha=eta_eff)  # eq. (1)
            m = st["momentum_buffer"]
            if group["nesterov"]:
                recall = self.recall({p: m})[p] if p in self._covs and eta_eff else None
                m = self._look_ahead(g, m, beta, kappa, eta_eff, recall)
            p.add_(m, alpha=-group["lr"])

    def _group_foreach(self, group, params, recalls):
        beta, kappa, eta_eff = self._hyper(group)
        gs = [p.grad for p in params]
        if group["weight_decay"] != 0:
            gs = torch._foreach_add(gs, params, alpha=group["weight_decay"])
        fresh = [i for i, p in enumerate(params) if "momentum_buffer" not in self.state[p]]
        for i in fresh:
            self.state[params[i]]["momentum_buffer"] = torch.mul(gs[i], kappa).detach()
        old = [i for i, p in enumerate(params) if i not in set(fresh)]
        if old:
            ms = [self.state[params[i]]["momentum_buffer"] for i in old]
            torch._foreach_mul_(ms, beta)
            torch._foreach_add_(ms, [gs[i] for i in old], alpha=kappa)
            keyed = [i for i in old if params[i] in recalls]
            if keyed:
                torch._foreach_add_([self.state[params[i]]["momentum_buffer"] for i in keyed],
                                    [recalls[params[i]] for i in keyed], alpha=-eta_eff)
        ms = [self.state[p]["momentum_buffer"] for p in params]
        if group["nesterov"]:
            updates = torch._foreach_add(torch._foreach_mul(gs, kappa), ms, alpha=beta)
            ahead = {p: u for p, u in zip(params, updates, strict=True) if p in self._covs} if eta_eff else {}
            if ahead:
                recalls = self.recall({p: self.state[p]["momentum_buffer"] for p in ahead})
                torch._foreach_add_(list(ahead.values()), [recalls[p] for p in ahead], alpha=-eta_eff)
            ms = updates
        torch._foreach_add_(params, ms, alpha=-group["lr"])
