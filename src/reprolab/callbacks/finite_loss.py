"""Stop a run once its loss stops being finite, without making the GPU wait for the host at every step.

On the CPU the loss is read at every step, before backward, so no non-finite update is ever applied. On an
accelerator reading it would synchronise the device each step; there the check keeps a device-side flag (and
the first non-finite loss) that costs no sync, and reads it every `check_every_n_steps` steps, before each validation
and at the end of training. So in the worst case a NaN runs `check_every_n_steps - 1` more optimizer steps on
non-finite weights before the run stops; no checkpoint is written from them (the flag is read before every
validation, where the best file and `last.ckpt` are written). The MTL engine, which runs its own backward, calls
the same `on_before_backward` hook with the vector of task losses.
"""

from __future__ import annotations

import math

import lightning as L
import torch

from reprolab.callbacks.checkpoint import last_checkpoint_path
from reprolab.cli.errors import NonFiniteLossError

SMALL = 64  # losses with at most this many elements are checked as Python floats (~3 µs, not ~10 µs)


def all_finite(loss: torch.Tensor) -> bool:
    """Reads the loss on the host (a device sync off the CPU)."""
    if loss.numel() <= SMALL:
        return all(map(math.isfinite, loss.detach().reshape(-1).tolist()))
    return bool(torch.isfinite(loss).all())


class FiniteLossGuard(L.Callback):
    def __init__(self, check_every_n_steps: int | None = None, deferred: bool | None = None):
        """`check_every_n_steps`: how often a deferred check reads its flag (None: Lightning's `log_every_n_steps`,
        where the logged loss syncs anyway). `deferred`: keep the flag on the device (None: off the CPU only)."""
        self.check_every_n_steps = check_every_n_steps
        self.deferred = deferred
        self._bad: torch.Tensor | None = None  # device-side: a loss since the last read was not finite
        self._bad_loss: torch.Tensor | None = None  # device-side: the first such loss
        self._read_at = 0  # the step of the last read

    def on_before_backward(self, trainer: L.Trainer, pl_module: L.LightningModule, loss: torch.Tensor) -> None:
        if not (loss.device.type != "cpu" if self.deferred is None else self.deferred):
            if not all_finite(loss):
                self._raise(trainer, loss)
            return
        flat = loss.detach().float().reshape(-1)
        bad = ~torch.isfinite(flat).all()
        if self._bad is None or self._bad_loss.shape != flat.shape:
            self._bad, self._bad_loss = torch.zeros((), dtype=torch.bool, device=flat.device), flat.clone()
        self._bad_loss = torch.where(bad & ~self._bad, flat, self._bad_loss)
        self._bad = self._bad | bad
        if (trainer.global_step + 1) % self._interval(trainer) == 0:
            self.check(trainer)

    def _interval(self, trainer: L.Trainer) -> int:
        return max(1, int(self.check_every_n_steps or trainer.log_every_n_steps or 1))

    def check(self, trainer: L.Trainer) -> None:
        """Read the device-side flag (one sync) and stop the run if a loss since the last read was not finite."""
        if self._bad is not None and bool(self._bad):
            self._raise(trainer, self._bad_loss, since=self._read_at)
        self._read_at = trainer.global_step

    def on_validation_start(self, trainer: L.Trainer, pl_module: L.LightningModule) -> None:
        if not trainer.sanity_checking:
            self.check(trainer)

    def on_train_epoch_end(self, trainer: L.Trainer, pl_module: L.LightningModule) -> None:
        self.check(trainer)

    def on_train_end(self, trainer: L.Trainer, pl_module: L.LightningModule) -> None:
        self.check(trainer)

    def _raise(self, trainer: L.Trainer, loss: torch.Tensor, since: int | None = None) -> None:
        last = last_checkpoint_path(trainer)
        kept = f"the last good checkpoint is {last}" if last.is_file() else "no checkpoint had been written yet"
        step = trainer.global_step
        when = f"at step {step}" if since is None or since >= step else f"between steps {since} and {step}"
        raise NonFiniteLossError(
            f"loss became {_describe(loss)} {when} (epoch {trainer.current_epoch}); "
            f"{kept}. Lower optimizer.lr, add warm-up, or check the data for NaNs."
        )


def _describe(loss: torch.Tensor) -> str:
    """`nan` for a scalar loss, `[0.52, nan]` (one per task) for a vector of task losses."""
    values = loss.detach().float().reshape(-1).tolist()
    return f"{values[0]:.4g}" if len(values) == 1 else "[" + ", ".join(f"{v:.4g}" for v in values) + "]"
