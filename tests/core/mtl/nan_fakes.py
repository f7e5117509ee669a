"""Test doubles reachable through `_target_`: MTL training data whose targets turn NaN."""

from __future__ import annotations

import math

from experiments.apt.problems import Problem, synthetic
from reprolab.mtl.task import MTLTask


def synthetic_with_nan_targets(**kwargs) -> Problem:
    """The APT synthetic problem with every training target of task 1 NaN (validation and test stay finite)."""
    problem = synthetic(**kwargs)
    problem.y["train"][:, 1] = math.nan
    return problem


class NaNTargetsAfterStepTask(MTLTask):
    """An MTL task whose training batches get NaN targets from `nan_at_step` on."""

    def __init__(self, *args, nan_at_step: int = 5, **kwargs):
        super().__init__(*args, **kwargs)
        self.nan_at_step = nan_at_step

    def on_train_batch_start(self, batch, batch_idx):
        if self.global_step >= self.nan_at_step:
            batch[1].fill_(math.nan)
