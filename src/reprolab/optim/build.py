"""Turn the `optimizer` / `scheduler` config partials into objects for a given model.

An optimizer whose constructor takes `model` (it needs module hooks or its own parameter split, e.g.
DeltaAdamW or Muon) receives the model; any other receives `param_groups(model)`.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable

import torch
from torch import nn


def param_groups(model: nn.Module) -> list[dict]:
    """Two groups: matrices/filters with the optimizer's weight decay, biases and norm gains without."""
    decay, no_decay = [], []
    for p in model.parameters():
        if p.requires_grad:
            (decay if p.ndim >= 2 else no_decay).append(p)
    groups = [{"params": decay}]
    if no_decay:
        groups.append({"params": no_decay, "weight_decay": 0.0})
    return groups


def _wants_model(factory: Callable) -> bool:
    func = factory.func if isinstance(factory, functools.partial) else factory
    target = func.__init__ if inspect.isclass(func) else func
    return "model" in inspect.signature(target).parameters


def build_optimizer(factory: Callable, model: nn.Module) -> torch.optim.Optimizer:
    if _wants_model(factory):
        return factory(model=model)
    return factory(params=param_groups(model))


def build_scheduler(factory: Callable | None, optimizer: torch.optim.Optimizer, total_steps: int):
    """A per-step LR scheduler in Lightning's dict form, or None for a constant learning rate."""
    if factory is None:
        return None
    return {"scheduler": factory(optimizer, total_steps=total_steps), "interval": "step", "frequency": 1}
