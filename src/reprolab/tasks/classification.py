"""Supervised classification: cross-entropy loss, top-1 accuracy on train/val/test."""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torchmetrics.classification import MulticlassAccuracy

from reprolab.cli.errors import ConfigError
from reprolab.tasks.base import StagedTask


class ClassificationTask(StagedTask):
    def __init__(self, model, optimizer, scheduler=None, num_classes: int = 10, label_smoothing: float = 0.0):
        super().__init__(model, optimizer, scheduler)
        self.num_classes = num_classes
        self.label_smoothing = label_smoothing
        self.metrics = torch.nn.ModuleDict(
            {stage: MulticlassAccuracy(num_classes, average="micro") for stage in ("train_", "val_", "test_")}
        )

    def step(self, batch, stage: str):
        images, labels = batch
        if images.ndim != 4 or labels.ndim != 1 or images.shape[0] != labels.shape[0]:
            raise ConfigError(
                f"classification expects (images [B,C,H,W], labels [B]); got {tuple(images.shape)} and "
                f"{tuple(labels.shape)}: check the data group's transforms and batch collation"
            )
        logits = self.model(images)
        loss = F.cross_entropy(logits, labels, label_smoothing=self.label_smoothing)
        acc = self.metrics[stage + "_"]
        acc.update(logits, labels)  # logged per epoch only: the per-batch value `acc(...)` computes (~0.1 ms) is unused
        on_step = stage == "train"
        self.log(f"{stage}/loss", loss, on_step=on_step, on_epoch=True, prog_bar=True, sync_dist=not on_step)
        self.log(f"{stage}/acc", acc, on_step=False, on_epoch=True, prog_bar=True)
        return loss
