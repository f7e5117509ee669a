"""DegradeQuery as a reprolab Task: counterfactual pretraining at fit start, then BCE fine-tuning.

Pretraining runs once, in `on_fit_start`, with the same `pretrain()` the plain claim path uses, on
the model's device (a checkpoint records that it ran, so a resumed run does not redo it). Fine-tuning is the Lightning
loop; validation / test log torchmetrics AUROC, accuracy, macro-F1, precision and recall as
`val/<metric>`, `test/<metric>`.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F

from reprolab.errors import ConfigError
from reprolab.metrics.binary import BinaryMetrics
from reprolab.task import Task

from .pretrain import pretrain

BATCH_KEYS = ("mol", "target", "e3", "label")


class DegradeQueryTask(Task):
    def __init__(self, model, optimizer, scheduler=None, pretrain_steps: int = 500, pretrain_batch: int = 128,
                 pretrain_lr: float = 1e-3, sampling: str = "frequency", threshold: float = 0.5):
        super().__init__(model, optimizer, scheduler)
        if pretrain_steps > 0 and not getattr(model, "use_tuple", True):
            raise ConfigError("the molecule-only model has no target/E3 to pretrain on; set task.pretrain_steps=0")
        self.pretrain_steps, self.pretrain_batch, self.pretrain_lr, self.sampling = pretrain_steps, pretrain_batch, pretrain_lr, sampling
        self.register_buffer("pretrained", torch.tensor(False))
        self.metrics = torch.nn.ModuleDict({s: BinaryMetrics(f"{s}/", threshold) for s in ("val", "test")})
        self.pretrain_losses: list[float] = []

    def on_fit_start(self) -> None:
        if self.pretrain_steps <= 0 or bool(self.pretrained):
            return
        dm = self.trainer.datamodule
        steps = min(self.pretrain_steps, 2) if self.trainer.fast_dev_run else self.pretrain_steps
        self.pretrain_losses = pretrain(self.model, dm.inputs, dm.pretrain_corpus(), dm.num_targets, dm.num_e3s,
                                        steps=steps, batch_size=self.pretrain_batch, lr=self.pretrain_lr,
                                        sampling=self.sampling, seed=int(torch.initial_seed()) % 2**31)
        self.pretrained.fill_(True)

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
