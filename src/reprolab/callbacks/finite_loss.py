"""Stop a run the moment its loss stops being finite, before the bad step reaches the weights.

The check runs before backward, so no NaN update is applied and no checkpoint is written after it:
`last.ckpt` stays the last good state, and the error names it.
"""

from __future__ import annotations

from pathlib import Path

import lightning as L
import torch

from reprolab.errors import NonFiniteLossError


class FiniteLossGuard(L.Callback):
    def on_before_backward(self, trainer: L.Trainer, pl_module: L.LightningModule, loss: torch.Tensor) -> None:
        if torch.isfinite(loss).all():
            return
        last = _last_checkpoint(trainer)
        kept = f"the last good checkpoint is {last}" if last else "no checkpoint had been written yet"
        raise NonFiniteLossError(
            f"loss became {loss.item()} at step {trainer.global_step} (epoch {trainer.current_epoch}); "
            f"{kept}. Lower optimizer.lr, add warm-up, or check the data for NaNs."
        )


def _last_checkpoint(trainer: L.Trainer) -> str | None:
    """`last.ckpt` on disk, or waiting in a BufferedCheckpoint (written when the error reaches it)."""
    for cb in trainer.checkpoint_callbacks:
        last = getattr(cb, "last_model_path", "")
        if last and (Path(last).exists() or last in getattr(cb, "pending", ())):
            return last
    return None
