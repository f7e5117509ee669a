"""Next-token prediction: cross-entropy on train/val/test. DeltaMomentum's LM presets (val = the fixed held-out
shard) and the supervised warm start of a language-model policy (targets −100 outside the expert's tokens)."""

from __future__ import annotations

import torch.nn.functional as F

from reprolab.cli.errors import ConfigError
from reprolab.run.finished_model import load_initial_weights
from reprolab.tasks.base import Task


class LanguageModelTask(Task):
    """`init_from`: a finished run folder or .ckpt to start from (more SFT on a warm start, at equal data)."""

    def __init__(self, model, optimizer, scheduler=None, init_from: str | None = None):
        super().__init__(model, optimizer, scheduler)
        if init_from:
            load_initial_weights(self.model, init_from, to_make_it="run the earlier supervised stage first")

    def _loss(self, batch):
        tokens, targets = batch
        if tokens.ndim != 2 or tokens.shape != targets.shape:
            raise ConfigError(f"language modelling expects (tokens [B,T], targets [B,T]) from the data group; got "
                              f"{tuple(tokens.shape)} and {tuple(targets.shape)}: use a data group of token sequences")
        logits = self.model(tokens)
        return F.cross_entropy(logits.float().flatten(0, 1), targets.flatten())

    def training_step(self, batch, batch_idx):
        loss = self._loss(batch)
        self.log("train/loss", loss, on_step=True, on_epoch=False, prog_bar=True)
        return loss

    def validation_step(self, batch, batch_idx):
        self.log("val/loss", self._loss(batch), on_epoch=True, prog_bar=True, sync_dist=True)

    def test_step(self, batch, batch_idx):
        self.log("test/loss", self._loss(batch), on_epoch=True, sync_dist=True)
