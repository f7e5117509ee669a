"""Stage 1: a small contrastive image encoder, the stand-in for SigLIP (Zhai et al. 2023).

A ViT over p x p patches gives a token feature map (B, N, D): the adapter reads it per token. Training is
SigLIP's pairwise sigmoid loss (Zhai et al., eq. 1), here between two views of the same image instead of
an image and its caption (there is no text): L = -1/B sum_ij log sigmoid(z_ij (t x_i . y_j + b)), z_ii = 1,
z_ij = -1 otherwise, with a learned temperature t = exp(t') (t' = log 10) and bias b (= -10). The views
differ by a shift of up to `max_shift` pixels and Gaussian pixel noise only, never by a colour or a flip,
so the features keep what the edits change. The encoder never sees an edit and is frozen afterwards.
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import nn

from experiments.delta_adapter.layers import Block, PatchEmbed


class TinyImageEncoder(nn.Module):
    def __init__(self, image_size: int = 16, patch: int = 4, width: int = 64, depth: int = 2, heads: int = 4,
                 embed_dim: int = 64):
        super().__init__()
        self.embed = PatchEmbed(image_size, patch, width)
        self.blocks = nn.Sequential(*[Block(width, heads) for _ in range(depth)])
        self.norm = nn.LayerNorm(width)
        self.head = nn.Linear(width, embed_dim)
        self.logit_scale = nn.Parameter(torch.tensor(math.log(10.0)))
        self.logit_bias = nn.Parameter(torch.tensor(-10.0))
        self.width = width

    def forward(self, images: torch.Tensor) -> torch.Tensor:
        """Token features (B, N, width) of images in [0, 1]."""
        return self.norm(self.blocks(self.embed(2 * images - 1)))

    def pooled(self, images: torch.Tensor) -> torch.Tensor:
        """Unit-norm image embedding (mean token, projected): the contrastive space."""
        return F.normalize(self.head(self(images).mean(1)), dim=-1)


def sigmoid_loss(x: torch.Tensor, y: torch.Tensor, logit_scale: torch.Tensor, logit_bias: torch.Tensor) -> torch.Tensor:
    """SigLIP's loss (eq. 1) between unit-norm embeddings x, y (B, D): matched pairs on the diagonal."""
    logits = x @ y.T * logit_scale.exp() + logit_bias
    labels = 2 * torch.eye(len(x), device=x.device, dtype=x.dtype) - 1
    return -F.logsigmoid(labels * logits).sum() / len(x)


def random_view(images: torch.Tensor, generator: torch.Generator, max_shift: int = 2, noise: float = 0.03) -> torch.Tensor:
    """A view that keeps colour and orientation: a random shift (reflect padding) plus Gaussian pixel noise."""
    b, _, h, w = images.shape
    padded = F.pad(images, (max_shift,) * 4, mode="reflect")
    dy, dx = torch.randint(0, 2 * max_shift + 1, (2,), generator=generator).tolist()
    view = padded[..., dy: dy + h, dx: dx + w]
    return (view + noise * torch.randn(view.shape, generator=generator).to(view)).clamp(0, 1)
