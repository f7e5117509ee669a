"""Steady-state training throughput: median time per training batch (forward, backward and, without
gradient accumulation, the optimizer step) after a warm-up (compilation, cudnn autotuning,
allocator growth), as `perf/step_ms`, `perf/samples_per_s` and, for token batches, `perf/tokens_per_s`."""

from __future__ import annotations

import statistics
import time

import lightning as L
import torch


def _first_tensor(batch):
    if torch.is_tensor(batch):
        return batch
    values = batch.values() if isinstance(batch, dict) else batch if isinstance(batch, list | tuple) else ()
    return next((t for t in map(_first_tensor, values) if t is not None), None)


class StepTimer(L.Callback):
    """Add with `+callbacks.step_timer._target_=reprolab.callbacks.StepTimer`; the numbers land in metrics.json.

    Not Lightning's ThroughputMonitor: that one times whole iterations (data loading included) over a rolling
    window and writes only to loggers; the benchmark tables need the median compute-only step in metrics.json."""

    def __init__(self, warmup_steps: int = 5):
        self.warmup_steps = warmup_steps
        self.times: list[float] = []
        self._start = 0.0
        self._samples = self._tokens = 0

    @staticmethod
    def _sync(pl_module: L.LightningModule) -> None:
        if pl_module.device.type == "cuda":
            torch.cuda.synchronize(pl_module.device)

    def _measuring(self, trainer) -> bool:
        return trainer.global_step >= self.warmup_steps  # counted over the run, not restarted each epoch

    def on_train_batch_start(self, trainer, pl_module, batch, batch_idx) -> None:
        if self._measuring(trainer):
            self._sync(pl_module)
            self._start = time.perf_counter()

    def on_train_batch_end(self, trainer, pl_module, outputs, batch, batch_idx) -> None:
        if not self._start:
            return
        self._sync(pl_module)
        self.times.append(time.perf_counter() - self._start)
        self._start = 0.0
        if not self._samples:  # the batch shape is read once
            first = _first_tensor(batch)
            if first is not None:
                self._samples = first.shape[0]
                self._tokens = first.numel() if first.ndim == 2 and not first.is_floating_point() else 0

    def on_train_end(self, trainer, pl_module) -> None:
        if not self.times:
            return
        step = statistics.median(self.times)
        world = trainer.world_size
        perf = {"perf/step_ms": 1000 * step, "perf/samples_per_s": world * self._samples / step}
        if self._tokens:
            perf["perf/tokens_per_s"] = world * self._tokens / step
        trainer.callback_metrics.update({k: torch.tensor(v) for k, v in perf.items()})
