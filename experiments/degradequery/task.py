"""DegradeQuery fine-tuning as a reprolab Task: BCE for high vs low degradation, from pretrained weights.

Stage 1 (`pretrain_task.py`, preset degradequery/pretrain) writes a run; before fitting, this task loads that run's
encoder and compatibility head from `pretrained_ckpt` (null: random initialisation, the no_pretrain ablation).
Validation / test log torchmetrics AUROC, accuracy, macro-F1, precision and recall as `val/<metric>`, `test/<metric>`.
Before testing, the tested weights score the validation set once more and the accuracy-maximising cut on it becomes
`val/threshold`; test then also logs accuracy at that cut and at the oracle cut (`sklearn_selection.threshold_report`).
"""

from __future__ import annotations

import torch
import torch.nn.functional as F

from reprolab.cli.errors import ConfigError
from reprolab.metrics.binary import BinaryMetrics
from reprolab.tasks.base import Task
from reprolab.tasks.sklearn_selection import accuracy_threshold, threshold_report

from .checkpoints import load_pretrained

BATCH_KEYS = ("mol", "target", "e3", "label")


class DegradeQueryTask(Task):
    def __init__(self, model, optimizer, scheduler=None, pretrained_ckpt: str | None = None, threshold: float = 0.5):
        super().__init__(model, optimizer, scheduler)
        if pretrained_ckpt and not getattr(model, "use_tuple", True):
            raise ConfigError("the molecule-only model has no target/E3 to pretrain on; set task.pretrained_ckpt=null")
        self.pretrained_ckpt = pretrained_ckpt
        self.metrics = torch.nn.ModuleDict({s: BinaryMetrics(f"{s}/", threshold) for s in ("val", "test")})
        self.val_threshold: float | None = None
        self._test_scores: list[tuple[torch.Tensor, torch.Tensor]] = []

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
        return self.model(**{k: v for k, v in batch.items() if k not in ("label", "mol_x")})

    def training_step(self, batch, batch_idx):
        loss = F.binary_cross_entropy_with_logits(self._logits(batch), batch["label"])
        self.log("train/loss", loss, on_step=True, on_epoch=True, prog_bar=True)
        return loss

    def _evaluate(self, batch, stage: str) -> torch.Tensor:
        logits = self._logits(batch)
        self.log(f"{stage}/loss", F.binary_cross_entropy_with_logits(logits, batch["label"]), sync_dist=True)
        probs = torch.sigmoid(logits)
        self.metrics[stage].update(probs, batch["label"].long())
        self.log_dict(self.metrics[stage], on_step=False, on_epoch=True, prog_bar=stage == "val")
        return probs

    def validation_step(self, batch, batch_idx):
        self._evaluate(batch, "val")

    def test_step(self, batch, batch_idx):
        self._test_scores.append((self._evaluate(batch, "test").detach().cpu(), batch["label"].long().cpu()))

    @torch.no_grad()
    def on_test_epoch_start(self) -> None:
        """The validation cut of the tested weights (none when there is no validation set, e.g. the refit)."""
        self._test_scores, self.val_threshold = [], None
        loader = self.trainer.datamodule.val_dataloader() if self.trainer.datamodule is not None else None
        scored = [(torch.sigmoid(self._logits(self.transfer_batch_to_device(b, self.device, 0))).cpu(), b["label"].long())
                  for b in (loader or [])]
        if scored:
            self.val_threshold = accuracy_threshold(*(torch.cat(part).numpy() for part in zip(*scored, strict=True)))
            self.log("val/threshold", self.val_threshold)

    def on_test_epoch_end(self) -> None:
        if self._test_scores:
            probs, labels = (torch.cat(part).numpy() for part in zip(*self._test_scores, strict=True))
            self.log_dict(threshold_report(probs, labels, self.val_threshold, prefix="test/"))
