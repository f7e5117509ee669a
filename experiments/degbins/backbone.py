"""The colour-guided DSR backbone and the degradation encoder that feeds the bins head.

Derived from the DegBins abstract with DCTNet (Zhao et al., CVPR 2022) and SGNet (Wang et al., AAAI
2024) as templates for the guided part; this is our reading, not the authors' code:
- two encoders at HR resolution: depth features F_L of the bicubic-upsampled LR map, guide features
  F_G of the RGB image;
- K guided fusion blocks: a gate computed from both branches selects which RGB structure enters the
  depth branch (the edge-attention / gradient-calibration idea of DCTNet and SGNet),
  F_D <- F_D + body([F_D, sigmoid(g([F_D, F_G])) * F_G]); dilations grow the receptive field for x16;
- the degradation encoder: the paper models "the HR/LR degradation relationship in a high-dimensional
  feature space"; we encode it as Z = E([F_H, F_L, F_H - F_L]), a C-channel per-pixel code of how the
  estimated HR features F_H differ from the LR-only features F_L. Z drives the bins (heads.py).
"""

from __future__ import annotations

from collections.abc import Sequence

import torch
import torch.nn.functional as F
from torch import Tensor, nn


def conv3x3(cin: int, cout: int, dilation: int = 1) -> nn.Conv2d:
    return nn.Conv2d(cin, cout, 3, padding=dilation, dilation=dilation)


class ResBlock(nn.Module):
    """conv-ReLU-conv with an identity skip (no normalisation, as in SR networks)."""

    def __init__(self, channels: int, dilation: int = 1):
        super().__init__()
        self.body = nn.Sequential(conv3x3(channels, channels, dilation), nn.ReLU(inplace=True),
                                  conv3x3(channels, channels, dilation))

    def forward(self, x: Tensor) -> Tensor:
        return x + self.body(x)


class GuidedFusion(nn.Module):
    """One gated RGB -> depth fusion step; the guide branch is refined by its own residual block
    (except in the last block, whose guide output nothing reads)."""

    def __init__(self, channels: int, dilation: int = 1, update_guide: bool = True):
        super().__init__()
        self.gate = nn.Sequential(conv3x3(2 * channels, channels), nn.Sigmoid())
        self.merge = nn.Conv2d(2 * channels, channels, 1)
        self.depth_body = ResBlock(channels, dilation)
        self.guide_body = ResBlock(channels, dilation) if update_guide else nn.Identity()

    def forward(self, depth: Tensor, guide: Tensor) -> tuple[Tensor, Tensor]:
        selected = self.gate(torch.cat([depth, guide], 1)) * guide
        depth = depth + self.depth_body(self.merge(torch.cat([depth, selected], 1)))
        return depth, self.guide_body(guide)


class GuidedBackbone(nn.Module):
    """(RGB, upsampled LR depth) -> degradation code Z (B, C, H, W) at HR resolution.

    `unshuffle` = u > 1 runs the encoders and fusion blocks on space-to-depth inputs at H/u x W/u and
    pixel-shuffles Z back to H x W (FDKN's speed-up, Kim et al. IJCV 2021); u = 1 is the plain network.
    """

    def __init__(self, channels: int = 32, dilations: Sequence[int] = (1, 2, 4, 1), unshuffle: int = 1):
        super().__init__()
        u = self.unshuffle = unshuffle
        self.depth_encoder = nn.Sequential(conv3x3(u * u, channels), nn.ReLU(inplace=True), ResBlock(channels))
        self.guide_encoder = nn.Sequential(conv3x3(3 * u * u, channels), nn.ReLU(inplace=True), ResBlock(channels))
        last = len(dilations) - 1
        self.fusions = nn.ModuleList(GuidedFusion(channels, d, update_guide=i < last) for i, d in enumerate(dilations))
        self.degradation = nn.Sequential(conv3x3(3 * channels, channels), nn.ReLU(inplace=True),
                                         ResBlock(channels))
        self.to_full = nn.Sequential(nn.Conv2d(channels, channels * u * u, 1), nn.PixelShuffle(u)) if u > 1 else nn.Identity()

    def forward(self, rgb: Tensor, depth_up: Tensor) -> Tensor:
        u = self.unshuffle
        if u > 1:
            if rgb.shape[-2] % u or rgb.shape[-1] % u:
                raise ValueError(f"image {tuple(rgb.shape[-2:])} is not divisible by unshuffle={u}")
            rgb, depth_up = F.pixel_unshuffle(rgb, u), F.pixel_unshuffle(depth_up, u)
        low = self.depth_encoder(depth_up)  # F_L: what the LR map alone says
        guide = self.guide_encoder(rgb)
        high = low
        for fusion in self.fusions:
            high, guide = fusion(high, guide)  # F_H: guided estimate of the HR features
        return self.to_full(self.degradation(torch.cat([high, low, high - low], 1)))
