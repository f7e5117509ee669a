"""Stage 1 of DegradeQuery: counterfactual tuple pretraining as a reprolab Task (preset degradequery/pretrain).

Each training step scores a batch of observed tuples and their target-, E3- and both-corruptions and returns
L = BCE(s(x), 1) + 1/3 sum_k BCE(s(x~_k), 0) (`pretrain.counterfactual_loss`). The test step reports the same loss
on every corpus tuple. Fine-tuning (`task.DegradeQueryTask`) loads this run's weights from `task.pretrained_ckpt`.
"""

from __future__ import annotations

import torch

from reprolab.cli.errors import ConfigError
from reprolab.tasks.base import Task

from .pretrain import CounterfactualSampler, counterfactual_loss


class CounterfactualPretrainTask(Task):
    # the corpus datamodule has a validation loader; pretraining selects nothing (reprolab.run.job_logging.expected_warnings)
    expected_warnings = ("You passed in a `val_dataloader` but have no `validation_step`",)

    def __init__(self, model, optimizer, scheduler=None, sampling: str = "frequency"):
        super().__init__(model, optimizer, scheduler)
        if not getattr(model, "use_tuple", True):
            raise ConfigError("the molecule-only model has no target/E3 to pretrain on; pretrain model=degradequery")
        if sampling not in ("frequency", "uniform"):
            raise ConfigError(f"task.sampling must be 'frequency' or 'uniform', got '{sampling}'")
        self.sampling = sampling
        self.sampler: CounterfactualSampler | None = None

    def setup(self, stage: str) -> None:
        dm = self.trainer.datamodule
        if not hasattr(dm, "tuples"):
            raise ConfigError("counterfactual pretraining reads the tuple corpus: use "
                              "data._target_=experiments.degradequery.datamodule.Protac8KPretrainCorpus")
        dm.setup(stage)
        seed = int(torch.initial_seed()) % 2**31  # the run's seed after seed_everything, as the removed loop used
        self.sampler = CounterfactualSampler(dm.tuples(), dm.num_targets, dm.num_e3s, self.sampling, seed)

    def _loss(self, batch: torch.Tensor) -> torch.Tensor:
        if not isinstance(batch, torch.Tensor) or batch.ndim != 2 or batch.shape[1] != 3:
            raise ConfigError("CounterfactualPretrainTask expects [B, 3] (mol, target, e3) batches: "
                              "use data._target_=experiments.degradequery.datamodule.Protac8KPretrainCorpus")
        return counterfactual_loss(self.model, self.trainer.datamodule.inputs, self.sampler, batch.cpu().numpy())

    def training_step(self, batch, batch_idx):
        loss = self._loss(batch)
        self.log("train/loss", loss, on_step=True, on_epoch=True, prog_bar=True)
        return loss

    def test_step(self, batch, batch_idx):
        self.log("test/loss", self._loss(batch), batch_size=len(batch))
