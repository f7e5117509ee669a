"""Full-batch L-BFGS for probes: one optimiser over all parameters (torch's LBFGS takes no parameter groups).

L-BFGS sees gradients only through inner products, so on whitened inputs from a zero start its path is
the same in every orthogonally related basis: the invariance of the fitted probe is exact, not approximate.
"""

from __future__ import annotations

import torch
from torch import nn


def full_batch_lbfgs(model: nn.Module, lr: float = 1.0, max_iter: int = 50, history_size: int = 20,
                     line_search_fn: str | None = "strong_wolfe", tolerance_grad: float = 1e-9,
                     tolerance_change: float = 1e-12) -> torch.optim.LBFGS:
    return torch.optim.LBFGS(model.parameters(), lr=lr, max_iter=max_iter, history_size=history_size,
                             line_search_fn=line_search_fn, tolerance_grad=tolerance_grad,
                             tolerance_change=tolerance_change)
