"""Muon for the hidden ≥2-D weights, AdamW for everything else, as one optimizer that takes the model.

Muon (Jordan et al. 2024, "Muon: an optimizer for hidden layers"): Nesterov momentum
B_t = μ B_{t−1} + (1−μ) G_t, input Ĝ = (1−μ) G_t + μ B_t, update O = NS₅(Ĝ) with the quintic Newton–Schulz
iteration X ← aX + (bA + cA²)X, A = XXᵀ, (a, b, c) = (3.4445, −4.7750, 2.0315), 5 steps, scaled by
√max(1, rows/cols), with decoupled weight decay θ ← θ(1 − ηλ) − η·scale·O.

Why not `torch.optim.Muon` (torch 2.14) directly: it accepts only 2-D parameters (SegNet-MTAN's 4-D
conv kernels need the (out, in·k·k) reshape Muon's authors use), runs NS in bfloat16 only (slow and
imprecise on CPUs), and has no way for APT (`reprolab.optim.apt`) to set the momentum per step or to act on
the orthogonalised update. The arithmetic is the same: `tests/core/optim/test_muon.py` holds this path
(`ns_dtype="bfloat16"`) equal to `torch.optim.Muon` on 2-D weights.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

import torch
from torch import Tensor, nn

NS_COEFFICIENTS = (3.4445, -4.7750, 2.0315)
DTYPES = {"float32": torch.float32, "bfloat16": torch.bfloat16, "float64": torch.float64}


def newton_schulz(grad: Tensor, steps: int = 5, coefficients: Sequence[float] = NS_COEFFICIENTS,
                  eps: float = 1e-7, dtype: torch.dtype = torch.float32) -> Tensor:
    """≈ U Vᵀ of grad = U S Vᵀ by the quintic Newton–Schulz iteration; ≥2-D inputs are viewed as (out, −1)."""
    shape = grad.shape
    x = grad.reshape(shape[0], -1).to(dtype)
    transposed = x.shape[0] > x.shape[1]
    if transposed:
        x = x.T
    x = x / x.norm().clamp(min=eps)
    a, b, c = coefficients
    for _ in range(steps):
        gram = x @ x.T
        x = torch.addmm(x, torch.addmm(gram, gram, gram, beta=b, alpha=c), x, beta=a)
    if transposed:
        x = x.T
    return x.reshape(shape).to(grad.dtype)


def lr_scale(shape: torch.Size, adjust_lr_fn: str = "original") -> float:
    """Shape scaling of the Muon step (same options as torch.optim.Muon)."""
    rows, cols = shape[0], math.prod(shape[1:])
    if adjust_lr_fn == "original":
        return math.sqrt(max(1.0, rows / cols))
    if adjust_lr_fn == "match_rms_adamw":
        return 0.2 * math.sqrt(max(rows, cols))
    if adjust_lr_fn == "spectral_unclamped":
        return math.sqrt(rows / cols)
    raise ValueError(f"adjust_lr_fn {adjust_lr_fn!r} is not one of original, match_rms_adamw, spectral_unclamped")


def split_muon_params(model: nn.Module, exclude: Sequence[str] = ("head", "embed", "classifier", "output"),
                      ) -> tuple[list[nn.Parameter], list[nn.Parameter]]:
    """(Muon, AdamW) parameters: ≥2-D weights whose name contains none of `exclude` go to Muon; embeddings,
    output layers / task heads and all 1-D parameters go to AdamW."""
    embeddings = {id(m.weight) for m in model.modules() if isinstance(m, nn.Embedding)}
    muon, adamw = [], []
    for name, p in model.named_parameters():
        if not p.requires_grad:
            continue
        hidden = p.ndim >= 2 and id(p) not in embeddings and not any(key in name for key in exclude)
        (muon if hidden else adamw).append(p)
    return muon, adamw


def adamw_update(p: Tensor, grad: Tensor, state: dict, lr: float, beta1: float, beta2: float, eps: float,
                 weight_decay: float) -> None:
    """One AdamW step (Loshchilov & Hutter 2019) that allows a per-step β1: bias correction uses Π_s β1_s,
    which equals β1^t when β1 is constant (then it is exactly torch.optim.AdamW)."""
    if not state:
        state["step"] = 0
        state["exp_avg"] = torch.zeros_like(p)
        state["exp_avg_sq"] = torch.zeros_like(p)
        state["beta1_prod"] = 1.0
    state["step"] += 1
    state["beta1_prod"] *= beta1
    p.mul_(1 - lr * weight_decay)
    state["exp_avg"].lerp_(grad, 1 - beta1)
    state["exp_avg_sq"].mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
    bias1 = 1 - state["beta1_prod"]
    bias2 = 1 - beta2 ** state["step"]
    denom = (state["exp_avg_sq"] / bias2).sqrt_().add_(eps)
    p.addcdiv_(state["exp_avg"], denom, value=-lr / bias1)


class MuonAdamW(torch.optim.Optimizer):
    """Muon on hidden ≥2-D weights + AdamW on the rest. `build_optimizer` passes the model (ctor has `model`).

    `use_muon=False` sends every parameter to AdamW (then it is torch.optim.AdamW, step for step).
    Subclasses (APT) override `before_step`, `momentum`, `muon_input` and `finish_muon_update`; here they are the identity.
    """

    def __init__(
        self,
        model: nn.Module | None = None,
        params: Iterable | None = None,
        lr: float = 0.02,
        momentum: float = 0.95,
        nesterov: bool = True,
        weight_decay: float = 0.0,
        ns_steps: int = 5,
        ns_coefficients: Sequence[float] = NS_COEFFICIENTS,
        eps: float = 1e-7,
        ns_dtype: str = "float32",
        adjust_lr_fn: str = "original",
        adamw_lr: float = 1e-3,
        adamw_betas: Sequence[float] = (0.9, 0.999),
        adamw_eps: float = 1e-8,
        adamw_weight_decay: float = 0.0,
        exclude: Sequence[str] = ("head", "embed", "classifier", "output"),
        use_muon: bool = True,
    ):
        if model is None and params is None:
            raise ValueError("MuonAdamW needs `model` (to split hidden weights from the rest) or `params`")
        if ns_dtype not in DTYPES:
            raise ValueError(f"ns_dtype {ns_dtype!r} is not one of {sorted(DTYPES)}")
        lr_scale(torch.Size([1, 1]), adjust_lr_fn)  # validates the option
        if model is not None:
            muon_params, adamw_params = split_muon_params(model, exclude)
        else:
            params = list(params)
            muon_params = [p for p in params if p.ndim >= 2]
            adamw_params = [p for p in params if p.ndim < 2]
        if not use_muon:  # everything to AdamW (APTAdamW builds on this)
            muon_params, adamw_params = [], muon_params + adamw_params
        groups = []
        if muon_params:
            groups.append(dict(params=muon_params, kind="muon", lr=lr, momentum=momentum, weight_decay=weight_decay))
        if adamw_params:
            groups.append(dict(params=adamw_params, kind="adamw", lr=adamw_lr, betas=tuple(adamw_betas),
                               eps=adamw_eps, weight_decay=adamw_weight_decay))
        if not groups:
            raise ValueError("MuonAdamW got no trainable parameters")
        super().__init__(groups, dict(nesterov=nesterov, ns_steps=ns_steps, ns_coefficients=tuple(ns_coefficients),
                                      ns_eps=eps, ns_dtype=ns_dtype, adjust_lr_fn=adjust_lr_fn))

    # --- hooks for APT -------------------------------------------------------------------------------
    def before_step(self) -> None:
        """Called once per step after the gradients are final (APT measures its signal here)."""

    def momentum(self, group: dict) -> float:
        """The momentum coefficient of this step for a group (Muon μ or AdamW β1)."""
        return group["momentum"] if group["kind"] == "muon" else group["betas"][0]

    def finish_muon_update(self, update: Tensor, grad: Tensor, group: dict) -> Tensor:
        """Post-process the orthogonalised update (APT's direction preservation); identity here."""
        return update

    def muon_input(self, grad: Tensor, buf: Tensor, beta: float, nesterov: bool) -> Tensor:
        """Update the momentum buffer in place and return the matrix to orthogonalise."""
        buf.lerp_(grad, 1 - beta)
        return grad.lerp(buf, beta) if nesterov else buf.clone()

    def orthogonalize(self, x: Tensor, group: dict) -> Tensor:
        return newton_schulz(x, group["ns_steps"], group["ns_coefficients"], group["ns_eps"], DTYPES[group["ns_dtype"]])

    # --- the step ------------------------------------------------------------------------------------
    @torch.no_grad()
    def step(self, closure=None):
        loss = None
        if closure is not None:
            with torch.enable_grad():
                loss = closure()
        self.before_step()
        for group in self.param_groups:
            beta = self.momentum(group)
            for p in group["params"]:
                if p.grad is None:
                    continue
                state = self.state[p]
                if group["kind"] == "adamw":
                    adamw_update(p, p.grad, state, group["lr"], beta, group["betas"][1], group["eps"], group["weight_decay"])
                    continue
                if "momentum_buffer" not in state:
                    state["momentum_buffer"] = torch.zeros_like(p)
                x = self.muon_input(p.grad, state["momentum_buffer"], beta, group["nesterov"])
                update = self.finish_muon_update(self.orthogonalize(x, group), p.grad, group)
                p.mul_(1 - group["lr"] * group["weight_decay"])
                p.add_(update, alpha=-group["lr"] * lr_scale(p.shape, group["adjust_lr_fn"]))
        return loss
