"""Steady solve R(q) = 0: Newton's method with pseudo-transient continuation (PTC), banded Jacobian by AD.

Each iteration solves (I/dt - dR/dq) dq = R(q) and grows dt by `growth` when the residual does not rise
(Kelley & Keyes 1998, switched evolution relaxation); dt -> infinity is Newton. The Jacobian is exact:
forward-mode AD with 2b+1 colours per variable for a residual whose node i couples to nodes |i - j| <= b.
A solve that does not reach `tol` raises `NotConverged`: the adjoint of an unconverged solve is wrong.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch.func import jvp, vmap

from experiments.darsm.linsolve import LinearSolve, shifted


class NotConverged(RuntimeError):
    """The steady solve stopped above its tolerance."""


@dataclass
class SolveInfo:
    iterations: int
    residual: float


def banded_jacobian(residual, q: torch.Tensor, n_vars: int = 3, bandwidth: int = 2) -> torch.Tensor:
    """dR/dq (dense) from (2 bandwidth + 1) * n_vars coloured JVPs."""
    m = q.numel() // n_vars
    colours = 2 * bandwidth + 1
    node = torch.arange(m, device=q.device)
    seeds = torch.zeros(n_vars * colours, n_vars, m, dtype=q.dtype, device=q.device)
    for v in range(n_vars):
        for c in range(colours):
            seeds[v * colours + c, v, node % colours == c] = 1.0
    columns = vmap(lambda e: jvp(residual, (q,), (e,))[1])(seeds.reshape(n_vars * colours, -1))
    rows = torch.arange(q.numel(), device=q.device)
    J = torch.zeros(q.numel(), q.numel(), dtype=q.dtype, device=q.device)
    for v in range(n_vars):
        for d in range(-bandwidth, bandwidth + 1):
            j = rows % m + d
            ok = (j >= 0) & (j < m)
            J[rows[ok], v * m + j[ok]] = columns[v * colours + j[ok] % colours, rows[ok]]
    return J


def rms(r: torch.Tensor) -> float:
    return float(r.norm()) / r.numel() ** 0.5


def ptc_step(residual, q: torch.Tensor, dt: float, jacobian=None, n_vars: int = 3,
             jacobian_fn=banded_jacobian) -> torch.Tensor:
    """One PTC update q + (I/dt - J)^{-1} R(q), with k and omega (variable blocks 1 and 2 of `n_vars`) kept above
    1/100 of their old value. `jacobian_fn(residual, q)` gives J (dense torch, or scipy sparse for the duct).

    Differentiable in q and in the closure's parameters through R; J is treated as a constant (detached)."""
    J = jacobian_fn(residual, q.detach()) if jacobian is None else jacobian
    m = q.numel() // n_vars
    new = q + LinearSolve.apply(shifted(J, dt), residual(q))
    return torch.cat([new[:m], torch.maximum(new[m:3 * m], 1e-2 * q[m:3 * m]), new[3 * m:]])


def newton_solve(residual, q0: torch.Tensor, tol: float = 1e-11, max_iters: int = 200, dt0: float = 0.1,
                 growth: float = 2.0, n_vars: int = 3, jacobian_fn=banded_jacobian) -> tuple[torch.Tensor, SolveInfo]:
    """Converge R(q) = 0 from q0 (no autograd graph); raises NotConverged above `tol` (RMS of scaled R)."""
    with torch.no_grad():
        q, dt = q0.detach().clone(), dt0
        r_norm = rms(residual(q))
        for it in range(max_iters):
            if r_norm < tol:
                return q, SolveInfo(it, r_norm)
            trial = ptc_step(residual, q, dt, n_vars=n_vars, jacobian_fn=jacobian_fn)
            trial_norm = rms(residual(trial))
            if trial_norm == trial_norm and trial_norm < 2.0 * r_norm:   # finite and not blown up
                q, r_norm, dt = trial, trial_norm, min(dt * growth, 1e12)
            else:
                dt /= 4.0
        if r_norm < tol:
            return q, SolveInfo(max_iters, r_norm)
    raise NotConverged(f"steady solve stopped at residual {r_norm:.3e} > tol {tol:.1e} after {max_iters} "
                       "iterations; raise solver.max_iters or check the closure")
