"""warmup_cosine against torch's own schedulers (LinearLR → CosineAnnealingLR under SequentialLR), where they agree."""

from __future__ import annotations

import math

import pytest
import torch
from torch.optim.lr_scheduler import CosineAnnealingLR, LinearLR, SequentialLR

from reprolab.optim.schedules import warmup_cosine


def lr_sequence(make_scheduler, steps: int, lrs: tuple[float, ...]) -> list[list[float]]:
    params = [{"params": [torch.nn.Parameter(torch.zeros(1))], "lr": lr} for lr in lrs]
    optimizer = torch.optim.SGD(params)
    scheduler = make_scheduler(optimizer)
    sequence = []
    for _ in range(steps):
        sequence.append([group["lr"] for group in optimizer.param_groups])
        optimizer.step()
        scheduler.step()
    return sequence


def torch_warmup_cosine(optimizer, total_steps, warmup_steps, min_lr_ratio):
    base_lr = optimizer.param_groups[0]["lr"]
    warmup = LinearLR(optimizer, start_factor=1 / warmup_steps, end_factor=1.0, total_iters=warmup_steps - 1)
    cosine = CosineAnnealingLR(optimizer, T_max=total_steps - warmup_steps, eta_min=min_lr_ratio * base_lr)
    return SequentialLR(optimizer, [warmup, cosine], milestones=[warmup_steps])


@pytest.mark.parametrize(("total", "warmup", "ratio"), [(100, 10, 0.1), (57, 3, 0.0), (40, 20, 0.5)])
def test_one_group_equals_torch_up_to_total_steps(total, warmup, ratio):
    [ours] = zip(*lr_sequence(lambda o: warmup_cosine(o, total, warmup, ratio), total + 1, (0.3,)), strict=True)
    [reference] = zip(*lr_sequence(lambda o: torch_warmup_cosine(o, total, warmup, ratio), total + 1, (0.3,)), strict=True)
    assert ours == pytest.approx(reference, abs=1e-12)


def test_where_torch_differs_each_group_keeps_its_own_floor_after_the_end():
    ours = lr_sequence(lambda o: warmup_cosine(o, 20, 4, 0.1), 30, (0.1, 0.02))
    assert ours[20] == pytest.approx([0.01, 0.002]) and ours[29] == pytest.approx([0.01, 0.002])
    reference = lr_sequence(lambda o: torch_warmup_cosine(o, 20, 4, 0.1), 30, (0.1, 0.02))
    assert not math.isclose(reference[29][0], 0.01)  # CosineAnnealingLR rises again after T_max
