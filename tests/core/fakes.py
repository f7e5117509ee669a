"""Test doubles reachable through `_target_`, for failure paths a real model reaches only by chance."""

from __future__ import annotations

import torch

from reprolab.tasks.classification import ClassificationTask


class NaNAfterStepTask(ClassificationTask):
    """A classification task whose loss turns NaN from `nan_at_step` on."""

    def __init__(self, *args, nan_at_step: int = 5, **kwargs):
        super().__init__(*args, **kwargs)
        self.nan_at_step = nan_at_step

    def training_step(self, batch, batch_idx):
        loss = super().training_step(batch, batch_idx)
        return loss * torch.nan if self.global_step >= self.nan_at_step else loss
