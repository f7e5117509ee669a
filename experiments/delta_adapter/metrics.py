"""The edit metrics, per image: PSNR and SSIM to the exact edited query, the edit-direction cosine in the
frozen encoder, and leakage (how much more the output resembles the exemplar's target than the query's
own true edit).

- psnr(x, y) = 10 log10(1 / MSE) for images in [0, 1];
- ssim: torchmetrics' SSIM (Gaussian window, sigma 1.5, `kernel_size` 7 for 16 x 16 images), per image;
- direction cosine: cos(e(output) - e(query), e(true edit) - e(query)), e = mean token of the encoder;
- leakage: cos(z(output), z(exemplar target)) - cos(z(output), z(true edit)), z = the encoder's unit-norm
  contrastive embedding; positive when the output is closer to the exemplar's target than to the truth.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torchmetrics.functional.image import structural_similarity_index_measure


def psnr(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    mse = (x - y).pow(2).flatten(1).mean(1)
    return 10 * torch.log10(1 / mse.clamp_min(1e-10))


def ssim(x: torch.Tensor, y: torch.Tensor, kernel_size: int = 7) -> torch.Tensor:
    return structural_similarity_index_measure(x, y, data_range=1.0, kernel_size=kernel_size, reduction="none")


def direction_cosine(out: torch.Tensor, query: torch.Tensor, truth: torch.Tensor) -> torch.Tensor:
    """Arguments are mean-token features (B, D)."""
    return F.cosine_similarity(out - query, truth - query, dim=-1)


def leakage(out: torch.Tensor, exemplar_target: torch.Tensor, truth: torch.Tensor) -> torch.Tensor:
    """Arguments are unit-norm embeddings (B, D)."""
    return (out * exemplar_target).sum(-1) - (out * truth).sum(-1)
