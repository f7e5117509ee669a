"""DegradeQuery: a tuple-conditioned encoder with a compatibility scorer and a degradation head.

z = f([m, t, e, m*t, m*e, t*e]) with m = g(ECFP(molecule)) (or a GIN on the molecular graph), t, e = target / E3 embeddings (plus a
projection of sequence features where a sequence is known). Counterfactual pretraining (see
`pretrain.py`) trains `compatibility(z)` to tell observed tuples from corrupted ones; fine-tuning
trains `classifier(z)` for high vs low degradation. With `use_tuple=False` the target and E3
are ignored (z = f(m)): the molecule-only baseline.

The paper's text is not at hand (only its abstract, summarised in issue 5), so the fusion width,
the interaction terms and the head sizes are our choices, exposed as fields of `conf/model/degradequery.yaml`.
"""

from __future__ import annotations

import torch
from torch import nn

from .graphs import GINEncoder


def mlp(sizes: list[int], dropout: float) -> nn.Sequential:
    """Linear layers with LayerNorm-GELU-Dropout between them (none after the last)."""
    layers: list[nn.Module] = []
    for i, (a, b) in enumerate(zip(sizes, sizes[1:], strict=False)):
        layers.append(nn.Linear(a, b))
        if i < len(sizes) - 2:
            layers += [nn.LayerNorm(b), nn.GELU(), nn.Dropout(dropout)]
    return nn.Sequential(*layers)


class FingerprintEncoder(nn.Module):
    """MLP on a binary fingerprint, whose first layer reads the indices of the on bits.

    `fp_on` is [B, L] long, the on-bit indices of each molecule padded with `n_bits`; the first layer
    sums the weight rows of those bits (EmbeddingBag), which equals Linear(dense fingerprint) at
    ~1/15 of the cost for ECFP4 of PROTACs (~130 of 2,048 bits on). `forward_dense` is the
    reference path on the dense 0/1 vector; a test holds the two equal. Input dropout drops on bits.
    """

    def __init__(self, n_bits: int, hidden: int, dim: int, dropout: float, input_dropout: float = 0.0):
        super().__init__()
        self.n_bits, self.input_dropout = n_bits, input_dropout
        self.first = nn.EmbeddingBag(n_bits + 1, hidden, mode="sum", padding_idx=n_bits)
        self.bias = nn.Parameter(torch.zeros(hidden))
        nn.init.uniform_(self.first.weight, -n_bits**-0.5, n_bits**-0.5)
        with torch.no_grad():
            self.first.weight[n_bits].zero_()
        self.rest = nn.Sequential(nn.LayerNorm(hidden), nn.GELU(), nn.Dropout(dropout), nn.Linear(hidden, dim))

    def forward(self, fp_on: torch.Tensor) -> torch.Tensor:
        weights = None
        if self.training and self.input_dropout > 0:
            keep = torch.rand(fp_on.shape, device=fp_on.device) >= self.input_dropout
            weights = keep.float() / (1 - self.input_dropout)
        return self.rest(self.first(fp_on, per_sample_weights=weights) + self.bias)

    def forward_dense(self, fp: torch.Tensor) -> torch.Tensor:
        """Reference path: the same network on the dense [B, n_bits] 0/1 fingerprint (no input dropout)."""
        return self.rest(fp.float() @ self.first.weight[: self.n_bits] + self.bias)


class DegradeQuery(nn.Module):
    """Encoder of a (molecule, target, E3) tuple with two heads: compatibility and degradation."""

    def __init__(
        self,
        fp_bits: int = 2048,
        num_targets: int = 512,
        num_e3s: int = 32,
        hidden: int = 512,
        dim: int = 128,
        dropout: float = 0.3,
        input_dropout: float = 0.1,
        use_tuple: bool = True,
        seq_dim: int = 0,
        mol_encoder: str = "ecfp",
        gin_layers: int = 3,
    ):
        super().__init__()
        self.use_tuple = use_tuple
        if mol_encoder == "ecfp":
            self.molecule = FingerprintEncoder(fp_bits, hidden, dim, dropout, input_dropout)
        elif mol_encoder == "gin":
            self.molecule = GINEncoder(hidden, dim, gin_layers, dropout)
        else:
            raise ValueError(f"mol_encoder must be 'ecfp' or 'gin', got '{mol_encoder}'")
        self.target = nn.Embedding(num_targets, dim)
        self.e3 = nn.Embedding(num_e3s, dim)
        self.target_seq = nn.Linear(seq_dim, dim) if seq_dim else None
        self.e3_seq = nn.Linear(seq_dim, dim) if seq_dim else None
        self.fuse = mlp([6 * dim if use_tuple else dim, hidden, dim], dropout)
        self.compat_head = nn.Linear(dim, 1)
        self.classifier = nn.Sequential(nn.GELU(), nn.Dropout(dropout), nn.Linear(dim, 1))

    def tuple_embedding(self, m, target, e3, target_seq=None, e3_seq=None) -> torch.Tensor:
        """z from a molecule embedding m and the target / E3 ids (and sequence features)."""
        if not self.use_tuple:
            return self.fuse(m)
        t, e = self.target(target), self.e3(e3)
        if self.target_seq is not None and target_seq is not None:
            t, e = t + self.target_seq(target_seq), e + self.e3_seq(e3_seq)
        return self.fuse(torch.cat([m, t, e, m * t, m * e, t * e], dim=-1))

    def encode(self, mol, target, e3, target_seq=None, e3_seq=None) -> torch.Tensor:
        return self.tuple_embedding(self.molecule(mol), target, e3, target_seq, e3_seq)

    def compatibility(self, mol, target, e3, target_seq=None, e3_seq=None) -> torch.Tensor:
        """Logit that the tuple was observed (counterfactual pretraining)."""
        return self.compat_head(self.encode(mol, target, e3, target_seq, e3_seq)).squeeze(-1)

    def forward(self, mol, target, e3, target_seq=None, e3_seq=None) -> torch.Tensor:
        """Logit of high degradation (fine-tuning)."""
        return self.classifier(self.encode(mol, target, e3, target_seq, e3_seq)).squeeze(-1)
