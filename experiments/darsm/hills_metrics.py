"""What the hills are scored on: relative L2 of u and, separately, of the wall-normal velocity v (the
recirculation's v is ~10 % of u: a pooled error would not see it), and the separation and reattachment points
of the lower wall, where the wall shear changes sign.

The wall shear's sign is that of the tangential velocity u_t = (u + v y_b') / sqrt(1 + y_b'^2) at the first
node off the hill (no-slip: tau_w ~ mu u_t / d_1). Along the periodic wall a + -> - change is a separation, a
- -> + change a reattachment, placed by linear interpolation between the two columns; the recirculation
bubble reported is the longest run of negative u_t (the main bubble behind the crest).
"""

from __future__ import annotations

import numpy as np
import torch

from experiments.darsm.hills import Hills
from experiments.darsm.hills_mesh import hill_profile


def weights(hills: Hills) -> torch.Tensor:
    """Quadrature weights of the interior nodes: the Jacobian (the nodes' share of the area, dxi = deta = 1)."""
    return hills.ops.jac


def relative_l2(hills: Hills, pred: torch.Tensor, truth: torch.Tensor) -> torch.Tensor:
    w = weights(hills)
    return torch.sqrt((w * (pred - truth) ** 2).sum() / (w * truth ** 2).sum())


def wall_tangential(hills: Hills, u: torch.Tensor, v: torch.Tensor) -> np.ndarray:
    """u_t at the first node off the hill, per column (nx,)."""
    m = hills.mesh
    _, slope = hill_profile(m.x1, m.alpha, m.length, m.hill_height)
    return ((u[:, 0] + v[:, 0] * slope) / torch.sqrt(1 + slope ** 2)).detach().cpu().numpy()


def recirculation(x: np.ndarray, ut: np.ndarray, length: float) -> tuple[float, float]:
    """(x_separation, x_reattachment) of the longest run of ut < 0 on the periodic wall; (nan, nan) if none."""
    n = len(x)
    negative = ut < 0
    if not negative.any():
        return float("nan"), float("nan")
    if negative.all():
        raise ValueError("the wall shear is negative everywhere: no attached flow, no bubble to locate")
    start = int(np.argmin(negative))                 # an attached column: runs never wrap past it
    best, run, begin = (0, 0), 0, 0
    for step in range(1, n + 1):
        i = (start + step) % n
        if negative[i]:
            run, begin = (run + 1, begin) if run else (1, step)
            if run > best[1]:
                best = (begin, run)
        else:
            run = 0
    first, count = (start + best[0]) % n, best[1]
    last = (first + count - 1) % n

    def crossing(i0: int, i1: int) -> float:
        x0, x1 = x[i0], x[i1] + (length if i1 < i0 else 0.0)
        return float((x0 + (x1 - x0) * ut[i0] / (ut[i0] - ut[i1])) % length)

    return crossing((first - 1) % n, first), crossing(last, (last + 1) % n)
