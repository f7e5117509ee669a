"""Test-time adaptation: a few optimiser steps on one test item's own context before it is scored, then the
weights put back, so no item sees another's adaptation.

A task feature beside Lightning's loop (it runs inside a `test_step`), shared by any paper whose method adapts per
instance (Delta-Adapter's fine-tune on the exemplar pair). The caller supplies the loss; which parameters move is a
config key of prefixes.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager

import torch

from reprolab.cli.errors import ConfigError


def adaptable_parameters(module: torch.nn.Module, prefixes, key: str = "task.tta_params") -> dict[str, torch.nn.Parameter]:
    """The trainable parameters whose names start with one of `prefixes` (None: all trainable parameters); a
    prefix that names none is one error line naming the config `key`."""
    trainable = {n: p for n, p in module.named_parameters() if p.requires_grad}
    if prefixes is None:
        return trainable
    chosen = {n: p for n, p in trainable.items() if any(n == q or n.startswith(f"{q}.") for q in prefixes)}
    unknown = [q for q in prefixes if not any(n == q or n.startswith(f"{q}.") for n in trainable)]
    if unknown or not chosen:
        names = sorted({n.rsplit(".", 1)[0] if n.count(".") > 1 else n for n in trainable})[:12]
        raise ConfigError(f"{key}={list(prefixes)}: {unknown or 'nothing'} names no trainable parameter; "
                          f"give prefixes of {names} or null (all)")
    return chosen


@contextmanager
def restored(params: dict[str, torch.nn.Parameter]) -> Iterator[None]:
    """Run the block on these parameters, then put their values back (the adaptation of one item)."""
    saved = {n: p.detach().clone() for n, p in params.items()}
    try:
        yield
    finally:
        with torch.no_grad():
            for n, p in params.items():
                p.copy_(saved[n])


def adapt(loss: Callable[[], torch.Tensor], params: dict[str, torch.nn.Parameter], steps: int, lr: float) -> None:
    """`steps` Adam steps at `lr` on `loss()` over `params` (the standard per-instance fine-tune). Call it inside
    `restored(params)`, and with gradients enabled (`torch.inference_mode(False)`, `torch.enable_grad()`) when it
    runs in Lightning's test loop."""
    optimizer = torch.optim.Adam(params.values(), lr=lr)
    for _ in range(steps):
        optimizer.zero_grad(set_to_none=True)
        loss().backward()
        optimizer.step()
