"""The MTL protocol's learning-rate schedule as a per-step scheduler for the `scheduler` group."""

from __future__ import annotations

from torch.optim.lr_scheduler import LambdaLR


def step_decay(optimizer, total_steps: int, at_fraction: float = 0.5, gamma: float = 0.5,
               warmup_steps: int = 0) -> LambdaLR:
    """Optional linear warm-up, then lr × `gamma` once `at_fraction` of the run has passed
    (MTAN / Nash-MTL: StepLR(step=100 epochs, γ=0.5) over 200 epochs)."""
    boundary = int(at_fraction * max(int(total_steps), 1))

    def factor(step: int) -> float:
        warm = min((step + 1) / warmup_steps, 1.0) if warmup_steps else 1.0
        return warm * (gamma if step >= boundary else 1.0)

    return LambdaLR(optimizer, factor)
