"""The counters `make plan` runs one optimizer step under (`reprolab.plan.compute.measure_step`): aten ops (eager kernel
launches) of the step alone, and the bytes autograd keeps for backward."""

from __future__ import annotations

import lightning as L
from torch.utils.flop_counter import FlopCounterMode

from reprolab.deps.compat import TorchDispatchMode


class OpCounter(TorchDispatchMode):
    """Counts aten ops (eager kernel launches)."""

    def __init__(self):
        super().__init__()
        self.ops = 0

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        self.ops += 1
        return func(*args, **(kwargs or {}))


class CountStepOps(L.Callback):
    """Counts aten ops and FLOPs from the batch's arrival to the end of its optimizer step only: the data pipeline
    (run in this process at num_workers=0, in loader workers on a GPU) and a task's once-per-fit or once-per-epoch
    passes (the post-hoc stage's latents over its hold-out, at fit start and after the epoch's last batch) are not
    part of the step. Callbacks' batch hooks run before the task's, so the window holds the step alone."""

    def __init__(self):
        self.counter, self.flops = OpCounter(), FlopCounterMode(display=False)

    def on_train_batch_start(self, trainer, pl_module, batch, batch_idx) -> None:
        self.flops.__enter__()
        self.counter.__enter__()

    def on_train_batch_end(self, trainer, pl_module, outputs, batch, batch_idx) -> None:
        self.counter.__exit__(None, None, None)
        self.flops.__exit__(None, None, None)


def saved_bytes_hook(store: dict, parameters=()):
    """Pack hook recording each distinct storage autograd keeps for backward (activation memory) as
    `store[address] = (bytes, dtype name)`: under autocast the dtype is what autocast saved, bf16 or fp32.
    The storages of `parameters` are counted as parameters, not here (autocast's bf16 copies of them are)."""
    skip = {p.untyped_storage().data_ptr() for p in parameters}

    def pack(t):
        if t.device.type == "meta":
            return t
        try:
            storage = t.untyped_storage()
            key = storage.data_ptr()
        except RuntimeError:  # a torch.func transform's wrapper (the adjoint's vmap/jacrev): freed when it ends
            return t
        if key not in skip:
            store.setdefault(key, (storage.nbytes(), str(t.dtype).removeprefix("torch.")))
        return t
    return pack
