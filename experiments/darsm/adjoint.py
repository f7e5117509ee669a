"""Gradients of a loss on the converged steady state q*(theta), R(q*, theta) = 0.

Adjoint (the implicit-function theorem): dq*/dtheta = -J^{-1} dR/dtheta with J = dR/dq at q*, so
dL/dtheta = -lambda^T dR/dtheta where J^T lambda = dL/dq, one transposed linear solve at the fixed point
(the discrete adjoint of the converged solve; its structure is the forward Newton system's, transposed).
`attach_fixed_point` returns q* - J^{-1} R(q*, theta): its value is q* (R = 0 there) and autograd's
backward through `linsolve.LinearSolve` is exactly that adjoint, so Lightning's ordinary backward pass gives dL/dtheta.

Unrolled: `unrolled_solve` keeps the autograd graph through `iterations` PTC steps of the forward scheme
(the Jacobian inside each step held constant), the baseline the paper reports failing.
"""

from __future__ import annotations

import torch

from experiments.darsm.linsolve import LinearSolve
from experiments.darsm.solver import banded_jacobian, ptc_step


def attach_fixed_point(residual, q_star: torch.Tensor, jacobian_fn=banded_jacobian) -> torch.Tensor:
    """q* carrying dq*/dtheta = -J^{-1} dR/dtheta; `residual(q)` must read theta from the live closure.
    `jacobian_fn(residual, q)`: the channel's dense banded J by default, the duct's sparse stencil J."""
    q_star = q_star.detach()
    J = jacobian_fn(residual, q_star)
    J = J.detach() if isinstance(J, torch.Tensor) else J
    return q_star - LinearSolve.apply(J, residual(q_star))


def unrolled_solve(residual, q0: torch.Tensor, iterations: int, dt0: float, growth: float, n_vars: int = 3,
                   jacobian_fn=banded_jacobian) -> torch.Tensor:
    """The forward PTC scheme on a fixed dt schedule with the graph kept through every iterate (`n_vars`,
    `jacobian_fn`: the geometry's, the channel's dense banded J by default, the duct's sparse stencil J)."""
    q, dt = q0.detach(), dt0
    for _ in range(iterations):
        q = ptc_step(residual, q, dt, n_vars=n_vars, jacobian_fn=jacobian_fn)
        dt = min(dt * growth, 1e12)
    return q


def central_difference(params, direction: torch.Tensor, h: float, evaluate) -> float:
    """(L(theta + h v) - L(theta - h v)) / 2h for a flat direction v over `params`; `evaluate()` re-solves and
    returns L. The parameters are restored afterwards. (The finite-difference check of the adjoint.)"""
    values = []
    for sign in (1.0, -1.0):
        step = torch.split(sign * h * direction, [p.numel() for p in params])
        with torch.no_grad():
            for p, d in zip(params, step, strict=True):
                p.add_(d.view_as(p))
            values.append(float(evaluate()))
            for p, d in zip(params, step, strict=True):
                p.sub_(d.view_as(p))
    return (values[0] - values[1]) / (2 * h)
