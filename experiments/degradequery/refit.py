"""Select-then-refit, stage 2: train on every training row for the epoch count stage 1 chose on the carve.

Stage 1 is the carve-select run (preset degradequery/main: early stopping on validation AUROC keeps the best epoch);
its best checkpoint's epoch e gives e + 1 epochs, which this callback sets as the refit's `max_epochs` before
fitting (preset degradequery/main_refit, `data.val_fraction=0`, so nothing is selected on the refit itself).
"""

from __future__ import annotations

from pathlib import Path

import lightning as L
import torch

from reprolab.cli.errors import DatasetNotFoundError

SELECT_COMMAND = "run stage 1 first: the carve-select sweep of degradequery/main (make claim-degradequery-official)"


def selected_epochs(run: str | Path) -> int:
    """Epochs the stage-1 run trained to reach its best checkpoint (its `checkpoints/best-*.ckpt`, epoch + 1)."""
    best = sorted(Path(run, "checkpoints").glob("best-*.ckpt"))
    if len(best) != 1:
        raise DatasetNotFoundError(f"no single best checkpoint in '{run}/checkpoints' (found {len(best)}); {SELECT_COMMAND}")
    return int(torch.load(best[0], map_location="cpu", weights_only=True)["epoch"]) + 1


class EpochsOfSelection(L.Callback):
    """Sets `trainer.fit_loop.max_epochs` to `selected_epochs(run)` and logs it as `refit/epochs`."""

    def __init__(self, run: str):
        self.run = run
        self.epochs: int | None = None

    def on_fit_start(self, trainer: L.Trainer, pl_module: L.LightningModule) -> None:
        self.epochs = selected_epochs(self.run)
        trainer.fit_loop.max_epochs = self.epochs

    def on_train_epoch_end(self, trainer: L.Trainer, pl_module: L.LightningModule) -> None:
        pl_module.log("refit/epochs", float(self.epochs))
