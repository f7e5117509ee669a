"""Learned voting rules: ballots[B, n, m] → candidate logits[B, m].

`EmbeddingMLP` is DeepVoting's small MLP on one canonical embedding (arXiv 2408.13630, §3); `BallotSetNet`
is the raw-ballot baseline of Anil & Bao (2021, "Learning to Elect"): a per-voter encoder, pooled over
voters (DeepSets), optionally with self-attention between voters first (Set Transformer style).
"""

from __future__ import annotations

import torch
from torch import nn

from experiments.voting.embeddings import Embedding
from reprolab.cli.errors import ConfigError


def mlp(in_features: int, hidden: int, depth: int, out_features: int) -> nn.Sequential:
    layers, width = [], in_features
    for _ in range(depth):
        layers += [nn.Linear(width, hidden), nn.ReLU()]
        width = hidden
    return nn.Sequential(*layers, nn.Linear(width, out_features))


class EmbeddingMLP(nn.Module):
    """An MLP on the flattened embedding; the embedding fixes the voter count only for `raw`."""

    def __init__(self, embedding: Embedding, num_candidates: int, num_voters: int, hidden: int = 64, depth: int = 2):
        super().__init__()
        self.embedding, self.num_candidates, self.num_voters = embedding, num_candidates, num_voters
        self.net = mlp(embedding.features(num_voters, num_candidates), hidden, depth, num_candidates)

    def forward(self, ballots: torch.Tensor) -> torch.Tensor:
        n, m = ballots.shape[-2:]
        if m != self.num_candidates or (self.embedding.name == "raw" and n != self.num_voters):
            raise ConfigError(
                f"the {self.embedding.name} MLP was built for m={self.num_candidates}"
                + (f", n={self.num_voters}" if self.embedding.name == "raw" else "")
                + f" but got profiles with m={m}, n={n}; match data.num_candidates/num_voters or use model=voting_deepsets"
            )
        return self.net(self.embedding(ballots).flatten(1))


class BallotSetNet(nn.Module):
    """DeepSets over voters: ρ(mean_v φ(onehot(ballot_v))); `attention_blocks > 0` adds voter self-attention."""

    def __init__(self, num_candidates: int, hidden: int = 128, depth: int = 2, attention_blocks: int = 0,
                 heads: int = 4):
        super().__init__()
        self.num_candidates = num_candidates
        self.phi = mlp(num_candidates * num_candidates, hidden, depth - 1, hidden)
        self.attention = nn.Sequential(*[
            nn.TransformerEncoderLayer(hidden, heads, dim_feedforward=2 * hidden, dropout=0.0, batch_first=True)
            for _ in range(attention_blocks)
        ])  # no positional encoding: permutation-equivariant over voters
        self.rho = mlp(hidden, hidden, depth, num_candidates)

    def forward(self, ballots: torch.Tensor) -> torch.Tensor:
        m = ballots.shape[-1]
        if m != self.num_candidates:
            raise ConfigError(f"BallotSetNet was built for m={self.num_candidates} candidates, got m={m}")
        voters = nn.functional.one_hot(ballots, m).float().flatten(-2)      # [B, n, m*m]
        return self.rho(self.attention(torch.relu(self.phi(voters))).mean(dim=1))


def parameter_count(model: nn.Module) -> int:
    return sum(p.numel() for p in model.parameters())
