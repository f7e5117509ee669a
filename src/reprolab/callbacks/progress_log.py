"""Progress as log lines for runs off a terminal (SLURM, CI), where no progress bar is drawn: every `interval_s`
seconds, `step 120/1000 (12%) epoch 1 loss 0.5321 3.21 it/s ETA 0:04:34` in the run's log (`<run>/train.log`)."""

from __future__ import annotations

import datetime
import logging
import math
import sys
import time
from collections.abc import Mapping

import lightning as L
import torch

log = logging.getLogger(__name__)
WHEN = ("auto", "always", "never")


def progress_line(step: int, total: float, epoch: int, loss: float | None, steps_per_s: float) -> str:
    known = math.isfinite(total) and total > 0
    where = f"step {step}/{int(total)} ({100 * step / total:.0f}%)" if known else f"step {step}"
    eta = datetime.timedelta(seconds=round((total - step) / steps_per_s)) if known and steps_per_s > 0 else "?"
    loss_text = f" loss {loss:.4g}" if loss is not None else ""
    return f"{where} epoch {epoch}{loss_text} {steps_per_s:.3g} it/s ETA {eta}"


def _loss(outputs) -> float | None:
    loss = outputs.get("loss") if isinstance(outputs, Mapping) else outputs
    return float(loss.detach()) if torch.is_tensor(loss) and loss.numel() == 1 else None


class ProgressLog(L.Callback):
    """`when`: `auto` logs only when stdout is not a terminal (a progress bar shows it there), `always`, `never`."""

    def __init__(self, interval_s: float = 30.0, when: str = "auto"):
        if when not in WHEN:
            raise ValueError(f"when={when!r}; choose one of {WHEN}")
        if isinstance(interval_s, bool) or not isinstance(interval_s, int | float) or not interval_s >= 0:
            raise ValueError(f"interval_s={interval_s!r}; give a number of seconds >= 0")
        self.interval_s = interval_s
        self.enabled = when == "always" or (when == "auto" and not sys.stdout.isatty())
        self._time, self._step = 0.0, 0

    def on_train_start(self, trainer, pl_module) -> None:
        self._time, self._step = time.monotonic(), trainer.global_step

    def on_train_batch_end(self, trainer, pl_module, outputs, batch, batch_idx) -> None:
        now = time.monotonic()
        if not self.enabled or not trainer.is_global_zero or now - self._time < self.interval_s:
            return
        steps_per_s = (trainer.global_step - self._step) / max(now - self._time, 1e-9)
        log.info(progress_line(trainer.global_step, trainer.estimated_stepping_batches, trainer.current_epoch,
                               _loss(outputs), steps_per_s))
        self._time, self._step = now, trainer.global_step
