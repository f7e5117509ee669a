"""The weighting interface: per-task losses (and, if needed, the task Jacobian) in, a combination out.

A weighting never touches parameters itself. It returns `Combination(loss_weights, shared_grad, head_weights)`:
- `shared_grad` (n,) is the combined gradient of the shared parameters when the method aggregates per-task
  gradients (PCGrad, CAGrad, ...); None for loss-based methods, whose shared gradient is ∇ Σ_t w_t L_t.
- `loss_weights` (T,) are the task weights (logged as `train/weight_<task>`; the loss weights of loss-based
  methods; what `heads=weighted` puts on the heads).
- `head_weights` (T,) scale each head's gradient of its own loss: 1 for the gradient-aggregating methods (their
  authors' code and LibMTL leave a head to its own loss), 1/L_t for DB-MTL (the gradient of log L_t), e^{s_t}
  for IMTL-L; None means `loss_weights` (loss-based methods, whose objective Σ_t w_t L_t is what the heads see).
`forward(losses, jac=None, gram=None)`: `gram` = J Jᵀ when the engine already has it (computed once per step).
`reprolab.mtl.engine.MTLBackward` turns this into `.grad` so that any optimizer drops in.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import Tensor, nn


@dataclass
class Combination:
    loss_weights: Tensor
    shared_grad: Tensor | None = None
    head_weights: Tensor | None = None


class Weighting(nn.Module):
    """Base class. `needs_jacobian` says whether `forward` wants the (T, n) shared Jacobian;
    `on_representation` whether it may take the Jacobian w.r.t. the shared representation instead
    (the "-UB" mode of Sener & Koltun 2018, §3.3; `task.jacobian_wrt=representation`)."""

    needs_jacobian: bool = False
    on_representation: bool = False
    #: step-to-step state that is not a parameter or buffer (DWA's loss history, FAMO's previous losses...)
    state_attributes: tuple[str, ...] = ()

    def __init__(self, n_tasks: int):
        super().__init__()
        if n_tasks < 1:
            raise ValueError(f"n_tasks must be >= 1, got {n_tasks}")
        self.n_tasks = n_tasks

    def forward(self, losses: Tensor, jac: Tensor | None = None, gram: Tensor | None = None) -> Combination:  # pragma: no cover
        raise NotImplementedError

    def check(self, losses: Tensor, jac: Tensor | None) -> None:
        if losses.shape != (self.n_tasks,):
            raise ValueError(f"{type(self).__name__} expects {self.n_tasks} task losses, got shape {tuple(losses.shape)}")
        if self.needs_jacobian and (jac is None or jac.shape[0] != self.n_tasks):
            shape = None if jac is None else tuple(jac.shape)
            raise ValueError(f"{type(self).__name__} needs the ({self.n_tasks}, n) task Jacobian, got {shape}")

    def get_extra_state(self) -> dict:
        """Checkpointed with the module: the `state_attributes` and the inner optimizer's state, so a run
        resumed from `last.ckpt` continues the weighting exactly where it stopped."""
        state = {name: getattr(self, name) for name in self.state_attributes}
        if isinstance(getattr(self, "opt", None), torch.optim.Optimizer):
            state["opt"] = self.opt.state_dict()
        return state

    def set_extra_state(self, state: dict) -> None:
        """Restore what `get_extra_state` saved; names a checkpoint lacks (made before they were saved) keep
        their fresh values."""
        for name in self.state_attributes:
            if name in state:
                setattr(self, name, state[name])
        if "opt" in state:
            self.opt.load_state_dict(state["opt"])

    def epoch_end(self) -> None:
        """Hook for methods that work on epoch-level statistics (DWA)."""


def gramian(jac: Tensor, gram: Tensor | None) -> Tensor:
    """J Jᵀ, reusing the engine's when it passed one."""
    return jac @ jac.T if gram is None else gram


def inner_adam(params, lr: float, weight_decay: float = 0.0) -> torch.optim.Optimizer:
    """A weighting's own optimizer for its own parameters (UW's log-variances, FAMO's logits, GradNorm)."""
    return torch.optim.Adam(params, lr=lr, weight_decay=weight_decay)
