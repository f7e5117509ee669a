"""`self.log` without re-walking its accumulator when nothing has to move.

Lightning's `_ResultCollection.log` calls `_ResultMetric.to(value.device)` at every `self.log`: a generic walk
over the accumulator's whole `__dict__` (a torchmetrics Metric: hooks, defaults, a dataclass it deep-copies),
~150 µs a call on CPU even when every tensor is already there. A short run that logs three values at every
validation step pays it thousands of times (a tenth of a DeltaMomentum regression job). `install` keeps
Lightning's move for any accumulator holding a tensor elsewhere, a Metric or an unknown dataclass, and returns
at once when its tensors are all on the device (where Lightning's walk would change nothing but copies).
"""

from __future__ import annotations

import dataclasses
import functools
import types
from collections import OrderedDict

import torch
from lightning.pytorch.trainer.connectors.logger_connector.result import _Metadata, _ResultMetric
from torchmetrics import Metric

_CONTAINERS = (dict, OrderedDict, list, tuple, set)


_ATOMS = (bool, int, float, str, type(None), torch.device, torch.dtype, types.FunctionType)


def all_on(value, device: torch.device) -> bool:
    """Every tensor in `value` (walking plain containers) is on `device`; False on a Metric or another dataclass."""
    if type(value) in _ATOMS:
        return True
    if isinstance(value, torch.Tensor):
        return value.device == device
    if isinstance(value, Metric):
        return False
    if type(value) in _CONTAINERS:
        items = value.values() if isinstance(value, dict) else value
        return all(all_on(item, device) for item in items)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return isinstance(value, _Metadata)  # Lightning's own: names, flags, a reduce function, no tensor
    return True


def install() -> None:
    """Wrap `_ResultMetric.to` (idempotent); `to.__wrapped__` is Lightning's."""
    if getattr(_ResultMetric.to, "reprolab_fast", False):
        return
    original = _ResultMetric.to

    @functools.wraps(original)
    def to(self, *args, **kwargs):
        if len(args) == 1 and not kwargs and isinstance(args[0], torch.device) and all_on(self.__dict__, args[0]):
            return self
        return original(self, *args, **kwargs)

    to.reprolab_fast = True
    _ResultMetric.to = to
