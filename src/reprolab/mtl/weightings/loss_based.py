"""Loss-based weightings (no per-task gradients needed): EW, UW, DWA, RLW, FAMO, and the single-task baseline.

Each returns loss weights w (T,); the engine back-propagates Σ_t w_t L_t once.
"""

from __future__ import annotations

import torch
from torch import Tensor, nn

from reprolab.mtl.weightings.base import Combination, Weighting, inner_adam


class EW(Weighting):
    """Equal weighting: w_t = 1, i.e. the gradient of Σ_t L_t (the usual 'linear scalarisation')."""

    def forward(self, losses: Tensor, jac: Tensor | None = None, gram: Tensor | None = None) -> Combination:
        self.check(losses, jac)
        return Combination(loss_weights=torch.ones_like(losses))


class SingleTask(Weighting):
    """The single-task (STL) baseline of Δm% (Maninis et al., CVPR 2019, eq. 9): w = e_task, so the shared
    network and the task's head learn from that task alone; the other heads are never trained."""

    def __init__(self, n_tasks: int, task: int = 0):
        super().__init__(n_tasks)
        if not 0 <= task < n_tasks:
            raise ValueError(f"single-task index {task} is outside 0..{n_tasks - 1}")
        self.task = task

    def forward(self, losses: Tensor, jac: Tensor | None = None, gram: Tensor | None = None) -> Combination:
        self.check(losses, jac)
        weights = torch.zeros_like(losses)
        weights[self.task] = 1.0
        return Combination(loss_weights=weights)


class UW(Weighting):
    """Uncertainty weighting (Kendall, Gal & Cipolla, CVPR 2018, eq. 7 with s_t = log σ_t²):
    L = Σ_t ½ exp(−s_t) L_t + ½ s_t. The model sees w_t = ½ exp(−s_t); s is learned by the weighting's own
    Adam (`lr`) on the detached losses, so the model's optimizer (Adam, Muon, APT) is left untouched."""

    def __init__(self, n_tasks: int, lr: float = 1e-2):
        super().__init__(n_tasks)
        self.log_vars = nn.Parameter(torch.zeros(n_tasks))
        self.opt = inner_adam([self.log_vars], lr=lr)

    def forward(self, losses: Tensor, jac: Tensor | None = None, gram: Tensor | None = None) -> Combination:
        self.check(losses, jac)
        losses = losses.detach()
        weights = 0.5 * torch.exp(-self.log_vars.detach())
        with torch.enable_grad():
            self.opt.zero_grad()
            (0.5 * torch.exp(-self.log_vars) * losses.to(self.log_vars) + 0.5 * self.log_vars).sum().backward()
            self.opt.step()
        return Combination(loss_weights=weights.to(losses))


class DWA(Weighting):
    """Dynamic weight average (Liu, Johns & Davison, MTAN, CVPR 2019, eq. 5):
    w_t = T·softmax_t(r_t / temp), r_t = L̄_t(e−1) / L̄_t(e−2) on epoch-average losses; w = 1 for the first two
    epochs. Call `epoch_end()` once per epoch (the MTL task does)."""

    state_attributes = ("count", "history")

    def __init__(self, n_tasks: int, temp: float = 2.0):
        super().__init__(n_tasks)
        self.temp = temp
        self.register_buffer("running", torch.zeros(n_tasks, dtype=torch.float64))
        self.count = 0
        self.history: list[Tensor] = []

    def forward(self, losses: Tensor, jac: Tensor | None = None, gram: Tensor | None = None) -> Combination:
        self.check(losses, jac)
        self.running += losses.detach().to(self.running)
        self.count += 1
        if len(self.history) < 2:
            return Combination(loss_weights=torch.ones_like(losses))
        ratio = (self.history[-1] / self.history[-2]).to(losses)
        return Combination(loss_weights=self.n_tasks * torch.softmax(ratio / self.temp, dim=0))

    def epoch_end(self) -> None:
        if self.count:
            self.history.append(self.running / self.count)
            self.history = self.history[-2:]
        self.running.zero_()
        self.count = 0


class RLW(Weighting):
    """Random loss weighting (Lin et al., TMLR 2022): w = softmax(z), z ~ N(0, I) drawn every step."""

    def forward(self, losses: Tensor, jac: Tensor | None = None, gram: Tensor | None = None) -> Combination:
        self.check(losses, jac)
        z = torch.randn(self.n_tasks, device=losses.device, dtype=losses.dtype)
        return Combination(loss_weights=torch.softmax(z, dim=0))


class FAMO(Weighting):
    """Fast adaptive multitask optimisation (Liu et al., NeurIPS 2023, Alg. 1).

    z = softmax(ξ); the model direction is Σ_t c z_t ∇L_t / L_t with c = (Σ_t z_t / L_t)⁻¹, i.e. loss
    weights c z_t / L_t. ξ is moved by its own Adam (lr β=`lr`, weight decay γ=`gamma`) down
    (∂z/∂ξ)ᵀ δ, where δ_t = log L_t(before) − log L_t(after) is the observed log-loss decrease over one update.
    `after`: `same_batch` (the authors' trainer: the same batch re-evaluated right after the optimiser step, one
    extra forward; the MTL task calls `observe_after`), or `next_batch` (the next step's losses stand in for the
    "after" losses of the previous update, saving that forward)."""

    state_attributes = ("prev",)
    AFTER = ("same_batch", "next_batch")

    def __init__(self, n_tasks: int, lr: float = 0.025, gamma: float = 1e-3, eps: float = 1e-8,
                 after: str = "same_batch"):
        super().__init__(n_tasks)
        if after not in self.AFTER:
            raise ValueError(f"FAMO's after={after!r} is not one of {', '.join(self.AFTER)}")
        self.logits = nn.Parameter(torch.zeros(n_tasks))
        self.opt = inner_adam([self.logits], lr=lr, weight_decay=gamma)
        self.eps = eps
        self.after = after
        self.prev: Tensor | None = None

    @property
    def wants_after_losses(self) -> bool:
        """Whether the MTL task should re-evaluate the batch after the step and call `observe_after`."""
        return self.after == "same_batch"

    def update(self, losses: Tensor) -> None:
        """One step of ξ from the loss decrease between `prev` and `losses`."""
        if self.prev is None:
            return
        delta = torch.log(self.prev + self.eps) - torch.log(losses.detach().to(self.prev) + self.eps)
        with torch.enable_grad():
            z = torch.softmax(self.logits, dim=0)
            (grad,) = torch.autograd.grad(z, self.logits, grad_outputs=delta.to(z))
        self.opt.zero_grad()
        self.logits.grad = grad
        self.opt.step()

    def observe_after(self, losses: Tensor) -> None:
        """`same_batch`: the losses of the batch just used, after the optimiser step."""
        self.update(losses)
        self.prev = None

    def forward(self, losses: Tensor, jac: Tensor | None = None, gram: Tensor | None = None) -> Combination:
        self.check(losses, jac)
        losses = losses.detach()
        if self.after == "next_batch":
            self.update(losses)
        self.prev = losses.to(self.logits).clone()
        z = torch.softmax(self.logits.detach(), dim=0).to(losses)
        scaled = losses + self.eps
        c = 1.0 / (z / scaled).sum()
        return Combination(loss_weights=c * z / scaled)
