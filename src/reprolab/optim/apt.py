"""APT: adaptive momentum that balances instant and amortised de-conflicting (arXiv 2604.08939, abstract).

Premise. Under an EMA momentum m_t = β m_{t−1} + (1−β) d_t the current de-conflicted direction d_t (what
PCGrad, CAGrad, ... produce) is only a (1−β) part of the update, so the de-conflicting is amortised over
~1/(1−β) steps, and stale directions dominate when the landscape bends (high curvature).

Our derivation (the paper's equations are not public; every choice is an option, see
experiments/apt/README.md):
1. signal s_t ∈ [0, 1] = clip(w_a·max(0, −cos(m_{t−1}, d_t)) + w_c·c_t, 0, 1): the first term is a curvature /
   oscillation signal (momentum points against the current direction), c_t = max(0, −min_{i≠j} cos(g_i, g_j))
   is the task-conflict signal handed in by the MTL engine (`set_task_conflict`); optionally EMA-smoothed.
2. β_t = β_max − (β_max − β_min)·s_t per group (β_max = the optimizer's own β1 / μ): the share of the
   current direction rises to (1−β_min) when the signal is high and stays (1−β_max) when it is low.
3. Muon only, direction preservation (`preserve`): "project" — if the orthogonalised update O opposes the
   current direction (⟨O, d⟩ < 0), remove that component along NS(d), O ← O − (⟨O,d⟩/⟨NS(d),d⟩)·NS(d), so
   ⟨O, d⟩ = 0 and the update never ascends the de-conflicted objective; "normalize" — orthogonalise
   a_g·d/‖d‖ + a_m·m/‖m‖ so NS's global normalisation cannot let the larger of the two swamp the other;
   "none".
With `enabled=False` both optimizers are exactly their plain versions (tests hold APTAdamW(off) ==
torch.optim.AdamW), and they still record `momentum_input_share`: ‖a_g d_t‖ / (‖a_g d_t‖ + ‖a_m m_{t−1}‖), the
share of the current gradient in the momentum *input* (a_g, a_m: its coefficients, e.g. (1−β, β) for Adam). It
ignores Adam's 1/√v̂ and Muon's Newton–Schulz; the share of the *applied* update is
`reprolab.mtl.diagnostics.UpdateShare` (logged as `train/update_share` for every optimizer).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

import torch
from torch import Tensor, nn

from reprolab.optim.muon import NS_COEFFICIENTS, MuonAdamW, newton_schulz

PRESERVE = ("none", "project", "normalize")


def mix_coefficients(beta: float, nesterov: bool) -> tuple[float, float]:
    """(a_g, a_m) with momentum input = a_g·d_t + a_m·m_{t−1} (Nesterov: (1−β)(1+β), β²)."""
    return ((1 - beta) * (1 + beta), beta * beta) if nesterov else (1 - beta, beta)


class _APT:
    """The adaptive-momentum mixin over MuonAdamW's hooks (`before_step`, `momentum`, `muon_input`,
    `finish_muon_update`)."""

    def _init_apt(self, enabled: bool, beta_min: float, align_weight: float, conflict_weight: float,
                  signal_ema: float, preserve: str) -> None:
        if preserve not in PRESERVE:
            raise ValueError(f"preserve {preserve!r} is not one of {PRESERVE}")
        if not 0.0 <= beta_min < 1.0:
            raise ValueError(f"beta_min must be in [0, 1), got {beta_min}")
        self.apt = dict(enabled=enabled, beta_min=beta_min, align_weight=align_weight,
                        conflict_weight=conflict_weight, signal_ema=signal_ema, preserve=preserve)
        self.signal = 0.0
        self.momentum_input_share = float("nan")
        self.betas_now: dict[int, float] = {}
        self._conflict: float | None = None

    def set_task_conflict(self, conflict: float | None) -> None:
        """The MTL engine's c_t for the coming step (0 = no two task gradients conflict)."""
        self._conflict = conflict

    def _buffer(self, p: Tensor, group: dict) -> Tensor | None:
        state = self.state[p]
        return state.get("momentum_buffer" if group["kind"] == "muon" else "exp_avg")

    def _base_beta(self, group: dict) -> float:
        return group["momentum"] if group["kind"] == "muon" else group["betas"][0]

    @torch.no_grad()
    def before_step(self) -> None:
        """One global signal for the step, then β_t per group and the share of d_t in the momentum input."""
        dot = mm = gg = 0.0
        for group in self.param_groups:
            for p in group["params"]:
                buf = self._buffer(p, group)
                if p.grad is None or buf is None:
                    continue
                dot += float(torch.sum(buf * p.grad))
                mm += float(torch.sum(buf * buf))
                gg += float(torch.sum(p.grad * p.grad))
        cos = dot / math.sqrt(mm * gg) if mm > 0 and gg > 0 else 0.0
        cfg = self.apt
        raw = cfg["align_weight"] * max(0.0, -cos) + cfg["conflict_weight"] * (self._conflict or 0.0)
        raw = min(max(raw, 0.0), 1.0)
        self.signal = cfg["signal_ema"] * self.signal + (1 - cfg["signal_ema"]) * raw
        self._conflict = None
        parts_g = parts_m = 0.0
        for group in self.param_groups:
            base = self._base_beta(group)
            beta = base - max(base - cfg["beta_min"], 0.0) * self.signal if cfg["enabled"] else base
            self.betas_now[id(group)] = beta
            a_g, a_m = mix_coefficients(beta, group["kind"] == "muon" and group["nesterov"])
            for p in group["params"]:
                buf = self._buffer(p, group)
                if p.grad is None:
                    continue
                parts_g += a_g**2 * float(torch.sum(p.grad * p.grad))
                if buf is not None:
                    parts_m += a_m**2 * float(torch.sum(buf * buf))
        ng, nm = math.sqrt(parts_g), math.sqrt(parts_m)
        self.momentum_input_share = ng / (ng + nm) if ng + nm > 0 else float("nan")

    def momentum(self, group: dict) -> float:
        return self.betas_now[id(group)]

    def muon_input(self, grad: Tensor, buf: Tensor, beta: float, nesterov: bool) -> Tensor:
        if not (self.apt["enabled"] and self.apt["preserve"] == "normalize"):
            return super().muon_input(grad, buf, beta, nesterov)
        a_g, a_m = mix_coefficients(beta, nesterov)
        m_norm = buf.norm()
        mixed = a_g * grad / grad.norm().clamp_min(1e-12)
        if m_norm > 0:
            mixed = mixed + a_m * buf / m_norm
        buf.lerp_(grad, 1 - beta)
        return mixed

    def finish_muon_update(self, update: Tensor, grad: Tensor, group: dict) -> Tensor:
        if not (self.apt["enabled"] and self.apt["preserve"] == "project"):
            return update
        along = torch.sum(update * grad)
        if along >= 0:
            return update
        ortho_grad = self.orthogonalize(grad, group)
        return update - (along / torch.sum(ortho_grad * grad).clamp_min(1e-12)) * ortho_grad


class APTMuon(_APT, MuonAdamW):
    """Muon (+AdamW for the rest) with APT's adaptive momentum and direction preservation."""

    def __init__(self, model: nn.Module | None = None, params: Iterable | None = None, lr: float = 0.02,
                 momentum: float = 0.95, nesterov: bool = True, weight_decay: float = 0.0, ns_steps: int = 5,
                 ns_coefficients: Sequence[float] = NS_COEFFICIENTS, eps: float = 1e-7, ns_dtype: str = "float32",
                 adjust_lr_fn: str = "original", adamw_lr: float = 1e-3, adamw_betas: Sequence[float] = (0.9, 0.999),
                 adamw_eps: float = 1e-8, adamw_weight_decay: float = 0.0,
                 exclude: Sequence[str] = ("head", "embed", "classifier", "output"),
                 enabled: bool = True, beta_min: float = 0.5, align_weight: float = 1.0, conflict_weight: float = 1.0,
                 signal_ema: float = 0.0, preserve: str = "project"):
        super().__init__(model, params, lr, momentum, nesterov, weight_decay, ns_steps, ns_coefficients, eps,
                         ns_dtype, adjust_lr_fn, adamw_lr, adamw_betas, adamw_eps, adamw_weight_decay, exclude)
        self._init_apt(enabled, beta_min, align_weight, conflict_weight, signal_ema, preserve)


class APTAdamW(_APT, MuonAdamW):
    """AdamW (decoupled weight decay; `weight_decay=0` is Adam) with APT's adaptive β1."""

    def __init__(self, model: nn.Module | None = None, params: Iterable | None = None, lr: float = 1e-3,
                 betas: Sequence[float] = (0.9, 0.999), eps: float = 1e-8, weight_decay: float = 0.0,
                 enabled: bool = True, beta_min: float = 0.5, align_weight: float = 1.0, conflict_weight: float = 1.0,
                 signal_ema: float = 0.0):
        super().__init__(model, params, adamw_lr=lr, adamw_betas=betas, adamw_eps=eps,
                         adamw_weight_decay=weight_decay, use_muon=False)
        self._init_apt(enabled, beta_min, align_weight, conflict_weight, signal_ema, "none")


__all__ = ["APTAdamW", "APTMuon", "PRESERVE", "mix_coefficients", "newton_schulz"]
