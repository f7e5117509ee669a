"""The optimizer/scheduler builders and the shared schedules."""

from __future__ import annotations

import functools
import math

import pytest
import torch
from torch import nn

from reprolab.optim import build_optimizer, build_scheduler, param_groups
from reprolab.optim.schedules import warmup_constant, warmup_cosine


class NeedsModel(torch.optim.SGD):
    def __init__(self, model: nn.Module, lr: float = 0.1):
        self.seen_model = model
        super().__init__(model.parameters(), lr=lr)


def small_model():
    return nn.Sequential(nn.Linear(4, 8), nn.LayerNorm(8), nn.Linear(8, 2))


def test_param_groups_exempt_biases_and_norms_from_weight_decay():
    decay, no_decay = param_groups(small_model())
    assert [p.shape for p in decay["params"]] == [torch.Size([8, 4]), torch.Size([2, 8])]
    assert len(no_decay["params"]) == 4 and no_decay["weight_decay"] == 0.0 and "weight_decay" not in decay


def test_build_optimizer_passes_groups_or_model():
    model = small_model()
    adamw = build_optimizer(functools.partial(torch.optim.AdamW, lr=1e-3, weight_decay=0.1), model)
    assert [g["weight_decay"] for g in adamw.param_groups] == [0.1, 0.0]
    special = build_optimizer(functools.partial(NeedsModel, lr=0.5), model)
    assert special.seen_model is model and special.param_groups[0]["lr"] == 0.5


def test_warmup_cosine_shape():
    opt = torch.optim.SGD([nn.Parameter(torch.zeros(1))], lr=1.0)
    sched = warmup_cosine(opt, total_steps=110, warmup_steps=10, min_lr_ratio=0.1)
    lrs = []
    for _ in range(111):
        lrs.append(opt.param_groups[0]["lr"])
        opt.step()
        sched.step()
    assert lrs[0] == pytest.approx(0.1) and lrs[9] == pytest.approx(1.0)
    assert lrs[60] == pytest.approx(0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * 0.5)))
    assert lrs[110] == pytest.approx(0.1)
    assert all(a >= b for a, b in zip(lrs[10:], lrs[11:], strict=False))


def test_warmup_fraction_scales_with_the_run():
    for total, expected in ((200, 20), (800, 80)):
        opt = torch.optim.SGD([nn.Parameter(torch.zeros(1))], lr=1.0)
        sched = warmup_cosine(opt, total_steps=total, warmup_fraction=0.1)
        lrs = []
        for _ in range(total):
            lrs.append(opt.param_groups[0]["lr"])
            opt.step()
            sched.step()
        assert lrs[expected - 1] == pytest.approx(1.0) and lrs[expected - 2] < 1.0 and max(lrs) == pytest.approx(1.0)


def test_warmup_constant_and_none():
    opt = torch.optim.SGD([nn.Parameter(torch.zeros(1))], lr=2.0)
    sched = warmup_constant(opt, total_steps=10, warmup_steps=4)
    assert opt.param_groups[0]["lr"] == pytest.approx(0.5)
    for _ in range(5):
        opt.step()
        sched.step()
    assert opt.param_groups[0]["lr"] == pytest.approx(2.0)
    assert build_scheduler(None, opt, 10) is None
    assert build_scheduler(functools.partial(warmup_cosine), opt, 10)["interval"] == "step"
