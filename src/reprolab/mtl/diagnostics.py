"""How much of the optimizer's final update follows the current MTL direction (issue 14 §4).

update_share = cos(Δθ, −d_t) = ⟨Δθ, −d_t⟩ / (‖Δθ‖·‖d_t‖), over every parameter that has a gradient, where
d_t is the combined gradient the weighting wrote into `.grad` this step and Δθ = θ_{t+1} − θ_t is the update the
optimizer actually applied (after Adam's 1/√v̂, Muon's Newton–Schulz, weight decay, APT's projection). It is
the signed fraction of the update's length that lies along −d_t: 1 for plain SGD, 1/√(1+β²) for heavy-ball
(Δθ = −η(d_t + β m_{t−1})) when ‖m_{t−1}‖ = ‖d_t‖ and m_{t−1} ⊥ d_t, 0 when the update ignores d_t. It measures
direction, not amount: a momentum parallel to d_t also gives 1.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import torch
from torch import Tensor, nn


class UpdateShare:
    """`before(params)` ahead of `optimizer.step()`, then `after()` → update_share (NaN if Δθ or d_t is 0)."""

    def before(self, params: Sequence[nn.Parameter]) -> None:
        self._params = [p for p in params if p.grad is not None]
        self._theta = [p.detach().clone() for p in self._params]
        self._grad = [p.grad.detach().clone() for p in self._params]

    @torch.no_grad()
    def after(self) -> float:
        dot = uu = gg = 0.0
        for p, old, g in zip(self._params, self._theta, self._grad, strict=True):
            delta: Tensor = p.detach() - old
            dot -= float(torch.sum(delta * g))
            uu += float(torch.sum(delta * delta))
            gg += float(torch.sum(g * g))
        self._params, self._theta, self._grad = [], [], []
        return dot / math.sqrt(uu * gg) if uu > 0 and gg > 0 else float("nan")
