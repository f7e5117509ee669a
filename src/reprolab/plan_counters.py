"""The counters `make plan` runs one optimizer step under (`reprolab.plan.measure_step`): aten ops (eager kernel
launches) of the step alone, and the bytes autograd keeps for backward."""

from __future__ import annotations

import lightning as L
import torch


class OpCounter(torch.utils._python_dispatch.TorchDispatchMode):
    """Counts aten ops (eager kernel launches)."""

    def __init__(self):
        super().__init__()
        self.ops = 0

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        self.ops += 1
        return func(*args, **(kwargs or {}))


class CountStepOps(L.Callback):
    """Counts aten ops from the batch's arrival to the end of its optimizer step only: the data pipeline (run in
    this process at num_workers=0, in loader workers on a GPU) is not a kernel launch of the step."""

    def __init__(self):
        self.counter = OpCounter()

    def on_train_batch_start(self, trainer, pl_module, batch, batch_idx) -> None:
        self.counter.__enter__()

    def on_train_batch_end(self, trainer, pl_module, outputs, batch, batch_idx) -> None:
        self.counter.__exit__(None, None, None)


def saved_bytes_hook(store: dict):
    """Pack hook summing the distinct storages autograd keeps for backward (activation memory)."""
    def pack(t):
        if t.device.type != "meta":
            key = t.untyped_storage().data_ptr()
            store.setdefault(key, t.untyped_storage().nbytes())
        return t
    return pack
