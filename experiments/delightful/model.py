"""The token-reversal policy: a small causal transformer over [prompt, SEP, answer so far] (2603.14608 §5).

The digits bandit uses the core `reprolab.models.mlp.MLP` (logits over the 10 labels).
"""

from __future__ import annotations

import torch
from torch import nn

SEP = 2  # prompt and answer tokens are 0/1; the separator is the third embedding


class ReversalTransformer(nn.Module):
    """Pre-norm causal transformer; `forward(tokens [B,T]) -> logits [B,T,vocab]` over the binary answer vocabulary."""

    def __init__(self, max_length: int, vocab: int = 2, d_model: int = 64, n_head: int = 4, n_layer: int = 2,
                 dropout: float = 0.0):
        super().__init__()
        self.max_length, self.vocab = max_length, vocab
        self.token = nn.Embedding(vocab + 1, d_model)
        self.position = nn.Embedding(2 * max_length + 1, d_model)
        layer = nn.TransformerEncoderLayer(d_model, n_head, 4 * d_model, dropout, batch_first=True, norm_first=True)
        self.blocks = nn.TransformerEncoder(layer, n_layer, enable_nested_tensor=False)
        self.norm = nn.LayerNorm(d_model)
        self.head = nn.Linear(d_model, vocab)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        length = tokens.shape[1]
        mask = nn.Transformer.generate_square_subsequent_mask(length, device=tokens.device)
        h = self.token(tokens) + self.position(torch.arange(length, device=tokens.device))
        return self.head(self.norm(self.blocks(h, mask=mask, is_causal=True)))
