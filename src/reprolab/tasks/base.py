"""The base LightningModule every task subclasses: it owns the model and builds its optimizer.

Subclasses say how a batch is consumed (loss, metrics); the optimizer, the schedule and the model come
from the `optimizer`, `scheduler` and `model` config groups, so swapping any of them is one override.
"""

from __future__ import annotations

from collections.abc import Callable

import lightning as L
from torch import nn

from reprolab.optim.build import build_optimizer, build_scheduler


class Task(L.LightningModule):
    def __init__(self, model: nn.Module, optimizer: Callable, scheduler: Callable | None = None):
        super().__init__()
        self.model = model
        self.optimizer_factory = optimizer
        self.scheduler_factory = scheduler

    def forward(self, *args, **kwargs):
        return self.model(*args, **kwargs)

    def configure_optimizers(self):
        optimizer = build_optimizer(self.optimizer_factory, self.model)
        scheduler = build_scheduler(self.scheduler_factory, optimizer, self.trainer.estimated_stepping_batches)
        if scheduler is None:
            return optimizer
        return {"optimizer": optimizer, "lr_scheduler": scheduler}


class StagedTask(Task):
    """A task whose training, validation and test steps are one `step(batch, stage)` with stage
    "train" | "val" | "test"; the training step returns the loss."""

    def step(self, batch, stage: str):
        raise NotImplementedError(f"{type(self).__name__} must define step(batch, stage)")

    def training_step(self, batch, batch_idx):
        return self.step(batch, "train")

    def validation_step(self, batch, batch_idx):
        self.step(batch, "val")

    def test_step(self, batch, batch_idx):
        self.step(batch, "test")
