"""DegradeQuery fine-tuning as a reprolab Task: BCE for high vs low degradation, from pretrained weights.

Stage 1 (`pretrain_task.py`, preset degradequery/pretrain) writes a run; before fitting, this task loads that run's
encoder and compatibility head from `pretrained_ckpt` (null: random initialisation, the no_pretrain ablation).
Validation / test log torchmetrics AUROC, accuracy, macro-F1, precision and recall as `val/<metric>`, `test/<metric>`.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F

from reprolab.errors import ConfigError
from reprolab.metrics.binary import BinaryMetrics
from reprolab.task import Task

from .checkpoints import load_pretrained

BATCH_KEYS = ("mol", "target", "e3", "label")


class DegradeQueryTask(Task):
    def __init__(self, model, optimizer, scheduler=None, pretrained_ckpt: str | None = None, threshold: float = 0.5):
        super().__init__(model, optimizer, scheduler)
        if pretrained_ckpt and not getattr(model, "use_tuple", True):
            raise ConfigError("the molecule-only model has no target/E3 to pretrain on; set task.pretrained_ckpt=null")
        self.pretrained_ckpt = pretrained_ckpt
        self.metrics = torch.nn.ModuleDict({s: BinaryMetrics(f"{s}/", threshold) for s in ("val", "test")})

    def setup(self, stage: str) -> None:
        """Start fitting from the pretrained weights (a resumed run's checkpoint is restored after this)."""
        if stage == "fit" and self.pretrained_ckpt:
            load_pretrained(self.model, self.pretrained_ckpt)

    def _logits(self, batch: dict) -> torch.Tensor:
        ok = isinstance(batch, dict) and all(k in batch for k in BATCH_KEYS)
        if not ok or batch["target"].ndim != 1 or batch["target"].shape != batch["label"].shape:
            got = sorted(batch) if isinstance(batch, dict) else type(batch).__name__
            raise ConfigError(f"DegradeQueryTask expects a dict batch with {BATCH_KEYS} (target/e3/label [B]), "
                              f"got {got}: use data=protac8k")
        return self.model(**{k: v for k, v in batch.items() if k != "label"})

    def training_step(self, batch, batch_idx):
        loss = F.binary_cross_entropy_with_logits(self._logits(batch), batch["label"])
        self.log("train/loss", loss, on_step=True, on_epoch=True, prog_bar=True)
        return loss

    def _evaluate(self, batch, stage: str) -> None:
        logits = self._logits(batch)
        self.log(f"{stage}/loss", F.binary_cross_entropy_with_logits(logits, batch["label"]), sync_dist=True)
        self.metrics[stage].update(torch.sigmoid(logits), batch["label"].long())
        self.log_dict(self.metrics[stage], on_step=False, on_epoch=True, prog_bar=stage == "val")

    def validation_step(self, batch, batch_idx):
        self._evaluate(batch, "val")

    def test_step(self, batch, batch_idx):
        self._evaluate(batch, "test")
