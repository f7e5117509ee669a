"""Per-task gradients of the shared parameters as one flat (T, n) matrix, and writing a flat vector back.

The unavoidable cost of every gradient-based MTL method is T backward passes (one per task loss). We take
them once per step with `torch.autograd.grad(..., retain_graph=True)` over the shared *and* the
task-specific parameters together, so the task-specific (head) gradients fall out of the same passes and no
extra backward is needed. `method="batched"` runs the T passes as one vmapped backward
(`is_grads_batched=True`); it is faster on GPUs for ops with batching rules and is held equal to the loop in
the tests. Flattening uses one `torch.cat` per task row, not a Python loop over elements.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch
from torch import Tensor, nn


def flat_numel(params: Sequence[nn.Parameter]) -> int:
    return sum(p.numel() for p in params)


def _flatten(grads: Sequence[Tensor | None], params: Sequence[nn.Parameter], out: Tensor) -> Tensor:
    """Concatenate the flattened gradients straight into `out` (one row of J: no extra copy)."""
    return torch.cat([(torch.zeros_like(p) if g is None else g).reshape(-1) for g, p in zip(grads, params, strict=True)],
                     out=out)


def task_jacobian(
    losses: Tensor,
    shared: Sequence[nn.Parameter],
    specific: Sequence[nn.Parameter] = (),
    method: str = "loop",
) -> tuple[Tensor, Tensor | None]:
    """Return (J, H): J[t] = ∂L_t/∂θ_shared flattened, H[t] = ∂L_t/∂θ_specific flattened (or None).

    `losses` is a 1-D tensor of the T task losses, still attached to the graph.
    """
    if losses.ndim != 1:
        raise ValueError(f"losses must be a 1-D tensor of task losses, got shape {tuple(losses.shape)}")
    params = list(shared) + list(specific)
    n_shared = flat_numel(shared)
    if method == "loop":
        full = losses.new_empty((losses.shape[0], flat_numel(params)))
        for t in range(losses.shape[0]):
            grads = torch.autograd.grad(losses[t], params, retain_graph=True, allow_unused=True)
            _flatten(grads, params, out=full[t])
    elif method == "batched":
        eye = torch.eye(losses.shape[0], dtype=losses.dtype, device=losses.device)
        grads = torch.autograd.grad(
            losses, params, grad_outputs=eye, retain_graph=True, allow_unused=True, is_grads_batched=True
        )
        full = torch.cat(
            [
                (torch.zeros((losses.shape[0], p.numel()), dtype=p.dtype, device=p.device) if g is None
                 else g.reshape(losses.shape[0], -1))
                for g, p in zip(grads, params, strict=True)
            ],
            dim=1,
        )
    else:
        raise ValueError(f"unknown jacobian method {method!r}; use 'loop' or 'batched'")
    jac = full[:, :n_shared]
    heads = full[:, n_shared:] if specific else None
    return jac, heads


def write_flat_grad(params: Sequence[nn.Parameter], flat: Tensor, accumulate: bool = False) -> None:
    """Write (or add) a flat vector into `.grad` of `params`, in order."""
    offset = 0
    for p in params:
        n = p.numel()
        g = flat[offset : offset + n].view_as(p).to(p.dtype)
        if accumulate and p.grad is not None:
            p.grad.add_(g)
        else:
            p.grad = g.clone()
        offset += n
    if offset != flat.numel():
        raise ValueError(f"flat gradient has {flat.numel()} entries but the parameters hold {offset}")


def pairwise_cosine(gram: Tensor, eps: float = 1e-12) -> Tensor:
    """T×T cosine matrix of the task gradients from their Gramian J Jᵀ."""
    norms = gram.diagonal().clamp_min(eps).sqrt()
    return gram / (norms[:, None] * norms[None, :])


def conflict_strength(gram: Tensor) -> float:
    """max(0, −min_{i≠j} cos(g_i, g_j)) ∈ [0, 1] from the Gramian: 0 when no two task gradients conflict."""
    if gram.shape[0] < 2:
        return 0.0
    cos = pairwise_cosine(gram)
    off = cos.masked_fill(torch.eye(cos.shape[0], dtype=torch.bool, device=cos.device), float("inf"))
    return float((-off.min()).clamp(0.0, 1.0))
