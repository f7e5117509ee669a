"""Transformer pieces shared by the stand-in encoder, the DiT editor and the Perceiver resampler."""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn


def split_heads(x: torch.Tensor, heads: int) -> torch.Tensor:
    """(B, N, D) -> (B, heads, N, D / heads)."""
    b, n, d = x.shape
    return x.view(b, n, heads, d // heads).transpose(1, 2)


def merge_heads(x: torch.Tensor) -> torch.Tensor:
    """(B, heads, N, d) -> (B, N, heads * d)."""
    b, h, n, d = x.shape
    return x.transpose(1, 2).reshape(b, n, h * d)


class Attention(nn.Module):
    """Multi-head attention softmax(QK^T / sqrt(d)) V; keys and values from `context` (self-attention without)."""

    def __init__(self, dim: int, heads: int, context_dim: int | None = None):
        super().__init__()
        if dim % heads:
            raise ValueError(f"width {dim} is not divisible by {heads} heads")
        self.heads = heads
        self.to_q = nn.Linear(dim, dim)
        self.to_kv = nn.Linear(context_dim or dim, 2 * dim)
        self.to_out = nn.Linear(dim, dim)

    def forward(self, x: torch.Tensor, context: torch.Tensor | None = None) -> torch.Tensor:
        k, v = self.to_kv(x if context is None else context).chunk(2, dim=-1)
        q, k, v = (split_heads(t, self.heads) for t in (self.to_q(x), k, v))
        return self.to_out(merge_heads(F.scaled_dot_product_attention(q, k, v)))


def mlp(dim: int, ratio: int = 4) -> nn.Sequential:
    return nn.Sequential(nn.Linear(dim, ratio * dim), nn.GELU(approximate="tanh"), nn.Linear(ratio * dim, dim))


class Block(nn.Module):
    """A pre-norm transformer block (self-attention, MLP)."""

    def __init__(self, dim: int, heads: int):
        super().__init__()
        self.norm1, self.norm2 = nn.LayerNorm(dim), nn.LayerNorm(dim)
        self.attn, self.mlp = Attention(dim, heads), mlp(dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x + self.attn(self.norm1(x))
        return x + self.mlp(self.norm2(x))


class PatchEmbed(nn.Module):
    """Non-overlapping p x p patches -> tokens (B, (H/p)(W/p), dim), plus a learned position embedding."""

    def __init__(self, image_size: int, patch: int, dim: int, channels: int = 3):
        super().__init__()
        if image_size % patch:
            raise ValueError(f"image_size {image_size} is not a multiple of patch {patch}")
        self.proj = nn.Conv2d(channels, dim, patch, stride=patch)
        self.pos = nn.Parameter(torch.randn(1, (image_size // patch) ** 2, dim) * 0.02)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.proj(x).flatten(2).transpose(1, 2) + self.pos
