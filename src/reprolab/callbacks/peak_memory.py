"""Peak GPU memory of a run (`torch.cuda.max_memory_allocated`) as `perf/peak_memory_gb` in metrics.json."""

from __future__ import annotations

import lightning as L
import torch


class PeakMemory(L.Callback):
    """Add with `+callbacks.peak_memory._target_=reprolab.callbacks.peak_memory.PeakMemory`; nothing on CPU."""

    def on_train_start(self, trainer, pl_module) -> None:
        if pl_module.device.type == "cuda":
            torch.cuda.reset_peak_memory_stats(pl_module.device)

    def on_train_end(self, trainer, pl_module) -> None:
        if pl_module.device.type == "cuda":
            peak = torch.cuda.max_memory_allocated(pl_module.device) / 1e9
            trainer.callback_metrics["perf/peak_memory_gb"] = torch.tensor(peak)
