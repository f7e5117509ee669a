"""DARSM's network: flow invariants -> the coefficients (A1, A2, A3, A4) of the implicit ARSM (`arsm.py`).

Inputs per node: log(1 + lambda_1), log(1 + |lambda_2|) with lambda_1 = tr(S^2), lambda_2 = tr(W^2) of the
tau-scaled tensors (Pope 1975's first two invariants; in a parallel shear flow they coincide), and
log(1 + Re_t) / 5 with Re_t = k / (nu omega), the one viscous scalar. Outputs are bounded corrections of
Wallin & Johansson's constants, A_i = A_i^WJ exp(r tanh(o_i)) for A1, A3, A4 and A2 = r2 tanh(o_2), so the
solve stays well posed for any weights; with `zero_init` the last layer starts at zero and the untrained
network is exactly the baseline ARSM.
"""

from __future__ import annotations

import torch
from torch import nn

from experiments.darsm.arsm import WJ_CONSTANTS


def invariant_inputs(f: dict) -> torch.Tensor:
    """A shear flow gives `s` (lambda_1 = -lambda_2 = 2 s^2); a general 2-D flow (the hills) gives `lam1`, `lam2`."""
    lam1 = f["lam1"] if "lam1" in f else 2.0 * f["s"] ** 2
    lam2 = f["lam2"].abs() if "lam2" in f else 2.0 * f["s"] ** 2
    return torch.stack([torch.log1p(lam1), torch.log1p(lam2), torch.log1p(f["re_t"].clamp_min(0.0)) / 5.0], -1)


def invariant_mlp(outputs: int, hidden: int, depth: int, zero_init: bool) -> tuple[nn.Sequential, nn.Linear]:
    """(body, head): `depth` tanh layers of width `hidden` over the three invariant inputs, then a linear head
    (zero-initialised with `zero_init`, so the untrained network outputs 0)."""
    if hidden < 1 or depth < 1:
        raise ValueError(f"model.hidden and model.depth must be >= 1; got {hidden}, {depth}")
    layers, width = [], 3
    for _ in range(depth):
        layers += [nn.Linear(width, hidden), nn.Tanh()]
        width = hidden
    head = nn.Linear(width, outputs)
    if zero_init:
        nn.init.zeros_(head.weight)
        nn.init.zeros_(head.bias)
    return nn.Sequential(*layers), head


class NeuralARSM(nn.Module):
    def __init__(self, hidden: int = 16, depth: int = 2, max_log_change: float = 0.7, max_a2: float = 0.5,
                 zero_init: bool = True):
        super().__init__()
        self.body, self.head = invariant_mlp(4, hidden, depth, zero_init)
        self.max_log_change, self.max_a2 = max_log_change, max_a2

    def forward(self, f: dict) -> dict:
        o = self.head(self.body(invariant_inputs(f).to(self.head.weight.dtype)))
        grow = lambda i, name: WJ_CONSTANTS[name] * torch.exp(self.max_log_change * torch.tanh(o[..., i]))
        return {"A1": grow(0, "A1"), "A2": self.max_a2 * torch.tanh(o[..., 1]),
                "A3": grow(2, "A3"), "A4": grow(3, "A4")}
