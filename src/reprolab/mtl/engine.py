"""One MTL backward step: task losses → combined gradient in `.grad`, so any optimizer can step next.

Gradient-based weightings get the (T, n) Jacobian of the shared parameters from T backward passes taken
once (`reprolab.mtl.jacobian.task_jacobian`), which also yields the head gradients; loss-based weightings
need one backward of Σ_t w_t L_t. The step also returns the task-conflict signal APT can use.

Task weights act on the shared parameters only. Each head is updated by its own task's loss, scaled by the
weighting's `head_weights` (1 for the gradient-aggregating methods, as in their authors' code and LibMTL;
1/L_t for DB-MTL's log-loss; the loss weights for loss-based methods, whose objective is Σ_t w_t L_t).
`heads="weighted"` instead multiplies head t by the task weight w_t, as the official MGDA (Sener & Koltun)
and Nash-MTL code do by back-propagating Σ_t w_t L_t.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

import torch
from torch import Tensor, nn

from reprolab.mtl.jacobian import conflict_strength, task_jacobian, write_flat_grad
from reprolab.mtl.weightings import Combination, Weighting

HEADS = ("own", "weighted")


class MTLBackward:
    """Callable: `stats = mtl_backward(losses)` writes `.grad` of `shared` and `specific` parameters.

    `always_jacobian=True` computes the Jacobian even for loss-based weightings (to measure conflict for APT
    or for logging); it costs the T backward passes those methods otherwise avoid.
    `representation` (a callable returning the shared representation z of the current forward) switches to
    the "-UB" mode of Sener & Koltun (2018, §3.3): the method works on the Jacobian w.r.t. z (cheap: it
    stops at the encoder output) and its combined z-gradient is back-propagated into the encoder once
    (MGDA → MGDA-UB; also PCGrad, IMTL, CAGrad, Nash-MTL, ..., and GradDrop as its paper applies it).
    `heads`: "own" (default) or "weighted" (module docstring).
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
        heads: str = "own",
    ):
        if heads not in HEADS:
            raise ValueError(f"heads must be 'own' (each head by its own loss) or 'weighted' (by the task weight), "
                             f"got {heads!r}")
        self.weighting = weighting
        self.shared = [p for p in shared if p.requires_grad]
        self.specific = [p for p in specific if p.requires_grad]
        self.jacobian_method = jacobian_method
        self.always_jacobian = always_jacobian
        self.representation = representation
        self.before_backward = before_backward
        self.heads = heads

    def head_weights(self, comb: Combination) -> Tensor:
        """What multiplies each head's gradient of its own loss."""
        if self.heads == "weighted" or comb.head_weights is None:
            return comb.loss_weights.detach()
        return comb.head_weights.detach()

    def __call__(self, losses: Tensor) -> dict:
        if losses.ndim != 1 or losses.shape[0] != self.weighting.n_tasks:
            raise ValueError(f"expected {self.weighting.n_tasks} task losses as a 1-D tensor, got {tuple(losses.shape)}")
        if self.before_backward is not None:
            self.before_backward(losses)
        if not self.weighting.needs_jacobian and not self.always_jacobian:
            return self._loss_step(losses)
        if self.representation is not None:
            return self._representation_step(losses)
        jac, heads = task_jacobian(losses, self.shared, self.specific, method=self.jacobian_method)
        gram = jac @ jac.T  # once: the conflict signal and every Gramian-based aggregator read it
        comb = self.weighting(losses.detach(), jac if self.weighting.needs_jacobian else None, gram=gram)
        weights = comb.loss_weights.detach()
        shared_grad = comb.shared_grad if comb.shared_grad is not None else weights @ jac
        write_flat_grad(self.shared, shared_grad.detach())
        if heads is not None:
            write_flat_grad(self.specific, self.head_weights(comb).to(heads) @ heads)
        return {"weights": weights, "conflict": conflict_strength(gram)}

    def _loss_step(self, losses: Tensor) -> dict:
        """Loss-based: ∇ Σ_t w_t L_t in one backward (a second, over the heads only, if their weights differ)."""
        comb = self.weighting(losses.detach(), None)
        weights, head = comb.loss_weights.detach(), self.head_weights(comb)
        if torch.equal(weights, head) or not self.specific:
            (weights * losses).sum().backward()
        else:
            self._write(self.specific, torch.autograd.grad((head * losses).sum(), self.specific, retain_graph=True,
                                                           allow_unused=True))
            self._write(self.shared, torch.autograd.grad((weights * losses).sum(), self.shared, allow_unused=True))
        return {"weights": weights, "conflict": None}

    def _representation_step(self, losses: Tensor) -> dict:
        rep = self.representation()
        jac, _ = task_jacobian(losses, [rep], method=self.jacobian_method)
        gram = jac @ jac.T
        if getattr(self.weighting, "wants_representation", False):
            comb = self.weighting(losses.detach(), jac, gram=gram, representation=rep.detach())
        else:
            comb = self.weighting(losses.detach(), jac, gram=gram)
        weights = comb.loss_weights.detach()
        rep_grad = comb.shared_grad if comb.shared_grad is not None else weights @ jac
        if self.specific:
            self._write(self.specific, torch.autograd.grad((self.head_weights(comb) * losses).sum(), self.specific,
                                                           retain_graph=True, allow_unused=True))
        self._write(self.shared, torch.autograd.grad(rep, self.shared, grad_outputs=rep_grad.detach().view_as(rep),
                                                     allow_unused=True))
        return {"weights": weights, "conflict": conflict_strength(gram)}

    @staticmethod
    def _write(params: list[nn.Parameter], grads: tuple[Tensor | None, ...]) -> None:
        for p, g in zip(params, grads, strict=True):
            p.grad = torch.zeros_like(p) if g is None else g.detach()


def zero_grad(params: Iterable[nn.Parameter]) -> None:
    for p in params:
        p.grad = None


def task_losses(losses: list[Tensor] | tuple[Tensor, ...]) -> Tensor:
    """Stack per-task scalar losses into the 1-D tensor the engine expects."""
    return torch.stack([loss.reshape(()) for loss in losses])
