"""Claim check 1: anisotropic streaming linear regression, and the per-direction memory horizons.

Inputs x = Q·diag(√λ)·z with variances λ over 3.5 decades, rotated by a fixed random orthogonal Q (with
axis-aligned inputs Adam's diagonal second moment would already precondition; the rotation is what a
full key covariance can see and a diagonal cannot). Targets y = w*ᵀx + noise, fresh batches every step,
optional random-walk drift of w*. Metric: steps until the excess risk (w − w*)ᵀΣ(w − w*) falls below
``target``·R₀, at each optimizer's best learning rate from a shared grid (the one with the fewest mean
steps over the seeds). The horizons experiment feeds keys with zero gradient to a memory started at
M₀ = I and sums its impulse response along each eigenvector: E[M_t] = M₀(βI − ηC)ᵗ, so the sum is
τᵢ = 1/((1 − β) + ηλᵢ) (eq. 1, truncated at the horizon of the run).
"""

from __future__ import annotations

import math

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from reprolab.optim.delta import DeltaAdamW, DeltaSGD

LR_GRID = {"sgd": [0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 4.0], "adam": [3e-3, 1e-2, 3e-2, 0.1, 0.3, 1.0]}


def covariance(d: int = 32, decades: float = 3.5, rotate: bool = True):
    """(eigenvalues λ, orthogonal Q) of the input covariance Σ = Q diag(λ) Qᵀ; fixed across seeds."""
    lam = torch.logspace(0, -decades, d)
    q = torch.linalg.qr(torch.randn(d, d, generator=torch.Generator().manual_seed(1234)))[0] if rotate \
        else torch.eye(d)
    return lam, q


def make_optimizer(name: str, model: nn.Module, lr: float, eta: float):
    if name == "sgdm":
        return torch.optim.SGD(model.parameters(), lr=lr, momentum=0.9)
    if name == "delta_sgd":
        return DeltaSGD(model, lr=lr, momentum=0.9, eta=eta)
    if name == "adamw":
        return torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=0.0)
    if name == "delta_adamw":
        return DeltaAdamW(model, lr=lr, weight_decay=0.0, eta=eta)
    raise ValueError(f"unknown optimizer {name!r}")


def steps_to_target(name: str, lr: float, seed: int, *, d=32, decades=3.5, rotate=True, batch=16,
                    noise=0.01, drift=0.0, target=1e-2, max_steps=2000, eta=0.5) -> float:
    """First step with excess risk ≤ target·R₀ (inf if never within ``max_steps`` or diverged)."""
    lam, q = covariance(d, decades, rotate)
    sigma = q @ torch.diag(lam) @ q.T
    gen = torch.Generator().manual_seed(seed)
    w_star = torch.randn(d, generator=gen)
    model = nn.Linear(d, 1, bias=False)
    nn.init.zeros_(model.weight)
    opt = make_optimizer(name, model, lr, eta)
    r0 = float(w_star @ sigma @ w_star)
    for step in range(1, max_steps + 1):
        x = (torch.randn(batch, d, generator=gen) * lam.sqrt()) @ q.T
        y = x @ w_star + noise * torch.randn(batch, generator=gen)
        F.mse_loss(model(x).squeeze(1), y).backward()
        opt.step()
        opt.zero_grad()
        if drift:
            w_star = w_star + drift * torch.randn(d, generator=gen)
        err = model.weight.detach()[0] - w_star
        risk = float(err @ sigma @ err)
        if risk <= target * r0:
            return float(step)
        if not math.isfinite(risk) or risk > 1e6 * r0:
            return math.inf
    return math.inf


def tuned_steps(name: str, seeds, **kw) -> dict:
    """Steps to target at the LR of the grid with the fewest mean steps (inf counts as 2·max_steps)."""
    grid = LR_GRID["adam" if "adam" in name else "sgd"]
    cap = 2 * kw.get("max_steps", 2000)
    table = {lr: [steps_to_target(name, lr, s, **kw) for s in seeds] for lr in grid}
    best = min(grid, key=lambda lr: np.mean([min(v, cap) for v in table[lr]]))
    return {"optimizer": name, "lr": best, "steps": table[best], "grid": table}


def memory_horizons(seeds, *, d=32, decades=3.5, beta=0.9, eta_top=0.8, batch=256, steps=150) -> dict:
    """Measured Σ_t q_iᵀ M_t q_i (M₀ = I, zero gradients) against τᵢ for DeltaSGD(κ=1−β, η = eta_top/λmax)."""
    lam, q = covariance(d, decades, rotate=True)
    eta = eta_top / float(lam.max())
    measured = []
    for seed in seeds:
        gen = torch.Generator().manual_seed(seed)
        layer = nn.Linear(d, d, bias=False)
        opt = DeltaSGD(layer, lr=0.0, momentum=beta, eta=eta, kappa="1-beta", eta_scale="none")
        layer.weight.grad = torch.zeros(d, d)
        opt.step()
        memory = opt.state[layer.weight]["momentum_buffer"]
        memory.copy_(torch.eye(d))
        total = torch.ones(d)
        for _ in range(steps):
            layer((torch.randn(batch, d, generator=gen) * lam.sqrt()) @ q.T)
            layer.weight.grad = torch.zeros(d, d)
            opt.step()
            total += torch.einsum("ij,ji->i", q.T @ memory, q)  # q_iᵀ M_t q_i
        measured.append(total)
    r = beta - eta * lam
    theory = (1 - r ** (steps + 1)) / (1 - r)
    return {"lambda": lam.tolist(), "measured": torch.stack(measured).mean(0).tolist(),
            "measured_std": torch.stack(measured).std(0, correction=int(len(seeds) > 1)).tolist(), "tau": theory.tolist(),
            "tau_ema": (1 - beta ** (steps + 1)) / (1 - beta), "eta": eta, "beta": beta}
