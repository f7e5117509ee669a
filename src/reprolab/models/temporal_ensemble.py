"""Temporal ensembling of action chunks (ACT, Zhao et al. 2023, §IV-A): the policy is queried at every step;
the action executed at step t is the weighted average of every chunk's prediction for t,
Σ w_i A_i[t] / Σ w_i with w_i = exp(−m · i), i = 0 for the OLDEST prediction (the paper's m = 0.01: a small m
weighs old and new nearly alike; a larger m trusts the oldest more)."""

from __future__ import annotations

import torch


class TemporalEnsemble:
    """`add(t, chunk)` stores the (B, k, A) chunk predicted at step t; `action(t)` returns the (B, A) average."""

    def __init__(self, m: float = 0.01):
        if m < 0:
            raise ValueError(f"the ensembling rate m must be >= 0 (the paper's is 0.01); got {m}")
        self.m = m
        self.chunks: list[tuple[int, torch.Tensor]] = []

    def reset(self) -> None:
        """Forget every stored chunk: a new episode."""
        self.chunks = []

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
