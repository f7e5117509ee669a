"""One MTL backward step: task losses → combined gradient in `.grad`, so any optimizer can step next.

Gradient-based weightings get the (T, n) Jacobian of the shared parameters from T backward passes taken
once (`reprolab.mtl.jacobian.task_jacobian`), which also yields the head gradients; loss-based weightings
need one backward of Σ_t w_t L_t. The step also returns the task-conflict signal APT can use.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

import torch
from torch import Tensor, nn

from reprolab.mtl.jacobian import conflict_strength, task_jacobian, write_flat_grad
from reprolab.mtl.weightings import Weighting


class MTLBackward:
    """Callable: `stats = mtl_backward(losses)` writes `.grad` of `shared` and `specific` parameters.

    `always_jacobian=True` computes the Jacobian even for loss-based weightings (to measure conflict for APT
    or for logging); it costs the T backward passes those methods otherwise avoid.
    `representation` (a callable returning the shared representation z of the current forward) switches to
    the "-UB" mode of Sener & Koltun (2018, §3.3): the weights come from the Jacobian w.r.t. z (cheap: it
    stops at the encoder output), and the model gets ∇ Σ_t w_t L_t from one backward. Only weightings that
    return task weights make sense there (MGDA → MGDA-UB, also PCGrad, IMTL-G, CAGrad, Nash-MTL, ...).
    `before_backward(losses)` runs before any backward pass (the MTL task hands it Lightning's
    `on_before_backward` hooks, so the core's non-finite-loss guard sees the losses as on any other path).
    """

    def __init__(
        self,
        weighting: Weighting,
        shared: Iterable[nn.Parameter],
        specific: Iterable[nn.Parameter] = (),
        jacobian_method: str = "loop",
        always_jacobian: bool = False,
        representation: Callable[[], Tensor] | None = None,
        before_backward: Callable[[Tensor], None] | None = None,
    ):
        self.weighting = weighting
        self.shared = [p for p in shared if p.requires_grad]
        self.specific = [p for p in specific if p.requires_grad]
        self.jacobian_method = jacobian_method
        self.always_jacobian = always_jacobian
        self.representation = representation
        self.before_backward = before_backward

    def __call__(self, losses: Tensor) -> dict:
        if losses.ndim != 1 or losses.shape[0] != self.weighting.n_tasks:
            raise ValueError(f"expected {self.weighting.n_tasks} task losses as a 1-D tensor, got {tuple(losses.shape)}")
        if self.before_backward is not None:
            self.before_backward(losses)
        if not self.weighting.needs_jacobian and not self.always_jacobian:
            comb = self.weighting(losses.detach(), None)
            (comb.loss_weights.detach() * losses).sum().backward()
            return {"weights": comb.loss_weights.detach(), "conflict": None}
        if self.representation is not None:
            return self._upper_bound_step(losses)
        jac, heads = task_jacobian(losses, self.shared, self.specific, method=self.jacobian_method)
        gram = jac @ jac.T  # once: the conflict signal and every Gramian-based aggregator read it
        comb = self.weighting(losses.detach(), jac if self.weighting.needs_jacobian else None, gram=gram)
        weights = comb.loss_weights.detach()
        shared_grad = comb.shared_grad if comb.shared_grad is not None else weights @ jac
        write_flat_grad(self.shared, shared_grad.detach())
        if heads is not None:
            write_flat_grad(self.specific, weights.to(heads) @ heads)
        return {"weights": weights, "conflict": conflict_strength(gram)}

    def _upper_bound_step(self, losses: Tensor) -> dict:
        rep = self.representation()
        jac, _ = task_jacobian(losses, [rep], method=self.jacobian_method)
        gram = jac @ jac.T
        weights = self.weighting(losses.detach(), jac, gram=gram).loss_weights.detach()
        (weights * losses).sum().backward()
        return {"weights": weights, "conflict": conflict_strength(gram)}


def zero_grad(params: Iterable[nn.Parameter]) -> None:
    for p in params:
        p.grad = None


def task_losses(losses: list[Tensor] | tuple[Tensor, ...]) -> Tensor:
    """Stack per-task scalar losses into the 1-D tensor the engine expects."""
    return torch.stack([loss.reshape(()) for loss in losses])
