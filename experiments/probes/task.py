"""Fitting a probe on frozen representations: logistic loss plus the probe's own penalty, AUROC.

The input map is fitted on the datamodule's training representations before the first step (`on_fit_start`)
and travels in the checkpoint, so the tested best/last probe sees exactly the map it was fitted with.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torchmetrics.classification import BinaryAUROC

from reprolab.tasks.base import StagedTask


class ProbeTask(StagedTask):
    def __init__(self, model, optimizer, scheduler=None):
        super().__init__(model, optimizer, scheduler)
        self.auroc = torch.nn.ModuleDict({s: BinaryAUROC() for s in ("train_", "val_", "test_")})

    def on_fit_start(self) -> None:
        x = self.trainer.datamodule.train_inputs()
        self.model.fit_inputs(x.to(self.device))

    def step(self, batch, stage: str):
        x, y = batch
        logits = self.model(x)
        loss = F.binary_cross_entropy_with_logits(logits, y.to(logits.dtype))
        auroc = self.auroc[stage + "_"]
        auroc(logits.detach(), y.long())
        self.log(f"{stage}/loss", loss, on_step=False, on_epoch=True)
        self.log(f"{stage}/auroc", auroc, on_step=False, on_epoch=True, prog_bar=True)
        return loss + self.model.penalty() if stage == "train" else loss
