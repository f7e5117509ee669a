"""Learning-rate schedules, each a function of the optimizer and the run's total step count.

Not torch's LinearLR + CosineAnnealingLR + SequentialLR: those give the same numbers for one parameter group up
to `total_steps` (tests/core/optim/test_schedules.py), but their `eta_min` is one absolute floor for every group
(ours is `min_lr_ratio` of each group's own lr, e.g. Muon's and AdamW's) and the cosine rises again after `total_steps`."""

from __future__ import annotations

import math

from torch.optim.lr_scheduler import LambdaLR


def warmup_cosine(optimizer, total_steps: int, warmup_steps: int = 0, min_lr_ratio: float = 0.0,
                  warmup_fraction: float = 0.0) -> LambdaLR:
    """Linear warm-up over `warmup_steps` (or, when that is 0, `warmup_fraction` of `total_steps`: a
    one-cycle-style warm-up that scales with the run), then cosine decay to `min_lr_ratio`·lr at `total_steps`."""
    total_steps = max(int(total_steps), 1)
    warmup_steps = warmup_steps or round(warmup_fraction * total_steps)

    def factor(step: int) -> float:
        if step < warmup_steps:
            return (step + 1) / warmup_steps
        progress = min((step - warmup_steps) / max(total_steps - warmup_steps, 1), 1.0)
        return min_lr_ratio + (1 - min_lr_ratio) * 0.5 * (1 + math.cos(math.pi * progress))

    return LambdaLR(optimizer, factor)


def warmup_constant(optimizer, total_steps: int, warmup_steps: int = 0) -> LambdaLR:
    """Linear warm-up, then the base learning rate until the end."""
    return LambdaLR(optimizer, lambda step: min((step + 1) / max(warmup_steps, 1), 1.0))
