"""Closed-loop execution of a policy: how it turns each step's observation into the one output executed now. Each
policy model builds its own rule from its own config by `executor()`: one query per step (`OneStep`, a plain policy),
temporal ensembling of chunks (ACT, `temporal_ensemble.py`), receding horizon (Diffusion Policy,
`receding_horizon.py`). An executor has `reset()` (a new episode) and `act(obs (B, D)) -> (B, A)`, the network's
output for the executed action (float64, on the CPU); the caller maps outputs to actions."""

from __future__ import annotations

from collections.abc import Callable

import torch
from torch import nn

Predict = Callable[[torch.Tensor], torch.Tensor]


def cpu_predictor(model: nn.Module, fn: Predict) -> Predict:
    """`fn` on the model's device: the input moved there, the output back to the CPU as float64 (the simulator's)."""
    def predict(obs: torch.Tensor) -> torch.Tensor:
        return fn(obs.to(next(model.parameters()).device)).double().cpu()
    return predict


class OneStep:
    """Query the policy at every step and execute its output (behaviour cloning's plain rule)."""

    def __init__(self, predict: Predict):
        self.predict = predict

    def reset(self) -> None:
        """Nothing to forget: every step is a fresh query."""

    def act(self, obs: torch.Tensor) -> torch.Tensor:
        return self.predict(obs)
