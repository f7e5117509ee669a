"""Temporal ensembling of action chunks (ACT, Zhao et al. 2023, §IV-A): the policy is queried at every step;
the action executed at step t is the weighted average of every chunk's prediction for t,
Σ w_i A_i[t] / Σ w_i with w_i = exp(−m · i), i = 0 for the OLDEST prediction (the paper's m = 0.01: a small m
weighs old and new nearly alike; a larger m trusts the oldest more). ACT's closed-loop executor (`executor.py`)."""

from __future__ import annotations

import torch

from reprolab.models.executor import Predict


class TemporalEnsemble:
    """`act(obs)` queries `predict(obs) -> (B, k, A)` chunk at the episode's next step and returns the (B, A) average
    for that step; `add(t, chunk)` / `action(t)` are the same two halves with an explicit step."""

    def __init__(self, predict: Predict, m: float = 0.01):
        if m < 0:
            raise ValueError(f"the ensembling rate m must be >= 0 (the paper's is 0.01); got {m}")
        self.predict, self.m = predict, m
        self.reset()

    def reset(self) -> None:
        """Forget every stored chunk: a new episode, at step 0."""
        self.chunks: list[tuple[int, torch.Tensor]] = []
        self.t = 0

    def act(self, obs: torch.Tensor) -> torch.Tensor:
        self.add(self.t, self.predict(obs))
        self.t += 1
        return self.action(self.t - 1)

    def add(self, t: int, chunk: torch.Tensor) -> None:
        self.chunks = [(s, c) for s, c in self.chunks if t - s < c.shape[1]] + [(t, chunk)]

    def weights(self, n: int) -> torch.Tensor:
        """Normalised weights of n predictions, oldest first."""
        w = torch.exp(-self.m * torch.arange(n, dtype=torch.float64))
        return w / w.sum()

    def action(self, t: int) -> torch.Tensor:
        preds = [c[:, t - s] for s, c in self.chunks if 0 <= t - s < c.shape[1]]
        if not preds:
            raise ValueError(f"no stored chunk predicts step {t}: call add(t, chunk) first")
        w = self.weights(len(preds)).to(preds[0])
        return torch.einsum("n,nba->ba", w, torch.stack(preds))
