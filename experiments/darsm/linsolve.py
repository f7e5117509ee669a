"""x = A^{-1} r for a dense torch matrix or a scipy sparse one, with the adjoint (transposed) solve as backward.

The channel's Jacobian is small and dense (torch.linalg.solve); the duct's is sparse (scipy's SuperLU, one
factorisation reused for the transposed solve). Backward of `LinearSolve`: lambda = A^{-T} g, no gradient to A
(A is always a detached Jacobian, or the PTC matrix I/dt - J built from one).
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla
import torch


class LinearSolve(torch.autograd.Function):
    """x = A^{-1} r forward; backward: A^{-T} g (the adjoint solve)."""

    @staticmethod
    def forward(ctx, A, r: torch.Tensor) -> torch.Tensor:
        if isinstance(A, torch.Tensor):
            ctx.save_for_backward(A)
            ctx.lu = None
            return torch.linalg.solve(A, r)
        ctx.lu = spla.splu(sp.csc_matrix(A))
        return _from_numpy(ctx.lu.solve(r.detach().cpu().numpy()), r)

    @staticmethod
    def backward(ctx, grad: torch.Tensor):
        if ctx.lu is None:
            (A,) = ctx.saved_tensors
            return None, torch.linalg.solve(A.transpose(0, 1), grad)
        return None, _from_numpy(ctx.lu.solve(grad.detach().cpu().numpy(), trans="T"), grad)


def _from_numpy(x: np.ndarray, like: torch.Tensor) -> torch.Tensor:
    return torch.as_tensor(x, dtype=like.dtype, device=like.device)


def shifted(J, dt: float):
    """The PTC matrix I/dt - J, in J's own format."""
    if isinstance(J, torch.Tensor):
        return torch.eye(J.shape[0], dtype=J.dtype, device=J.device) / dt - J.detach()
    return sp.identity(J.shape[0], format="csc") / dt - J
