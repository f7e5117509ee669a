"""Profile embeddings (DeepVoting §3.2, "canonical embeddings"): each maps ballots[B, n, m] to features.

All are normalised by the number of voters n, so one network serves elections of any size (and odd or
even n). `raw` keeps every ballot (a one-hot rank × candidate matrix per voter); the three social-choice
embeddings are anonymous (voter order cannot matter) and permute with the candidates.
"""

from __future__ import annotations

import torch
from torch import nn

from experiments.voting.rules import pairwise_counts, rank_counts


class Embedding(nn.Module):
    """Parameter-free; `shape(n, m)` is the feature shape of one profile (before flattening)."""

    name = "embedding"

    def shape(self, n: int, m: int) -> tuple[int, ...]:
        return (m, m)

    def features(self, n: int, m: int) -> int:
        return int(torch.tensor(self.shape(n, m)).prod())


class RawBallots(Embedding):
    """One-hot ballots X[B, v, r, c] = 1 iff voter v ranks c at position r, divided by n."""

    name = "raw"

    def shape(self, n, m):
        return (n, m, m)

    def forward(self, ballots):
        n, m = ballots.shape[-2:]
        return nn.functional.one_hot(ballots, m).float() / n


class PairwisePreferences(Embedding):
    """Weighted majority matrix W[a, b] = (# voters with a ≻ b) / n."""

    name = "pairwise"

    def forward(self, ballots):
        return pairwise_counts(ballots).float() / ballots.shape[-2]


class Tournament(Embedding):
    """Majority tournament T[a, b] = sign(W[a, b] − W[b, a]) ∈ {−1, 0, 1} (0: a tie, possible for even n)."""

    name = "tournament"

    def forward(self, ballots):
        counts = pairwise_counts(ballots)
        return (counts - counts.transpose(-1, -2)).sign().float()


class PairwiseMargins(Embedding):
    """Majority margins M[a, b] = (W[a, b] − W[b, a]) = (#a ≻ b − #b ≻ a) / n ∈ [−1, 1], antisymmetric and centred:
    Copeland is the row sum of sign(M) and Borda (up to a constant) the row sum of M, so both rules read it."""

    name = "margin"

    def forward(self, ballots):
        counts = pairwise_counts(ballots)
        return (counts - counts.transpose(-1, -2)).float() / ballots.shape[-2]


class PairwiseAndTournament(Embedding):
    """[W, T] stacked: the weighted majority (Borda is linear in it) and its signs (Condorcet winners are)."""

    name = "pairwise_tournament"

    def shape(self, n, m):
        return (2, m, m)

    def forward(self, ballots):
        return torch.stack([PairwisePreferences()(ballots), Tournament()(ballots)], dim=-3)


class RankPositions(Embedding):
    """Rank-frequency matrix R[c, r] = (# voters ranking c at position r) / n (positional rules read it)."""

    name = "rank_position"

    def forward(self, ballots):
        return rank_counts(ballots).float() / ballots.shape[-2]


def permute_candidates(ballots: torch.Tensor, perm: torch.Tensor) -> torch.Tensor:
    """Rename candidate c as perm[c] in every ballot (perm[B, m]); a neutral rule's output permutes alike."""
    return torch.gather(perm[:, None, :].expand(-1, ballots.shape[1], -1), -1, ballots)
