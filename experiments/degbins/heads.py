"""Residual heads on the degradation code Z: DegBins' multi-stage adaptive bins, and the plain
regression head it is compared with at equal parameter count.

Bins (our reading of the abstract, with AdaBins / LocalBins / IEBins as templates). At stage t, with
the previous residual estimate r_{t-1} and half-range s_{t-1} (r_0 = 0, s_0 = R):
  h_t   = h_{t-1} + U([h_{t-1}, Z, r_{t-1} / s_{t-1}])   (shared update U = 1x1, GELU, 3x3; IEBins-style)
  w, l  = split(O(h_t)) + (b_w, b_l)                                    (N width logits, N prob logits)
  w     = softmax(w);  c_k = r_{t-1} - s_{t-1} + 2 s_{t-1} (sum_{j<=k} w_j - w_k / 2)   (LocalBins
          per-pixel adaptive widths over [r - s, r + s])
  p     = softmax(l);  r_t = sum_k p_k c_k                               (AdaBins hybrid regression)
  s_t   = clamp(gamma * sqrt(sum_k p_k (c_k - r_t)^2), s_min, s_{t-1})   (IEBins elastic range)
          gamma = 0.5 is IEBins' (`update_sample`: the next full range is one std), s_t <= s_{t-1} is ours
Position input (`position_input`): r_{t-1} / s_{t-1} (`r_over_s`, the default) grows as the range narrows (~11 at
x16, ~90 at x8 near s_min) into U's weights shared by all stages; `r_over_R` feeds r_{t-1} / R, the regression head's
normalisation, bounded: |r_{t-1}| <= s_0 + ... + s_{t-2} and s_t <= gamma s_{t-1} (above s_min), so |r / R| < 1 / (1 - gamma).
The predicted depth of stage t is D_up + r_t. b_w, b_l (2N numbers) are learned prior logits: the
initial partition and bin prior shared by all pixels.

Regression (the additive formulation): same U and O; r_t = r_{t-1} + a . GELU(O(h_t)) with a 1x1
read-out a of 2N weights and no bias, so both heads hold exactly the same number of parameters.
U and O are shared across stages, so the parameter count does not depend on the number of stages.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from experiments.degbins.backbone import conv3x3

POSITION_INPUTS = ("r_over_s", "r_over_R")


class _StagedHead(nn.Module):
    """The parts both heads share: the stage update U and the 2N-channel output O."""

    def __init__(self, channels: int, num_bins: int, stages: int, residual_range: float):
        super().__init__()
        if stages < 1 or num_bins < 2:
            raise ValueError(f"need stages >= 1 and num_bins >= 2; got stages={stages}, num_bins={num_bins}")
        self.num_bins, self.stages, self.residual_range = num_bins, stages, residual_range
        # 1x1 mixing then one 3x3 conv: the head runs at full HR resolution, so it is kept light.
        self.update = nn.Sequential(nn.Conv2d(2 * channels + 1, channels, 1), nn.GELU(), conv3x3(channels, channels))
        self.out = nn.Conv2d(channels, 2 * num_bins, 1)
        nn.init.zeros_(self.out.weight)  # both heads start exactly at the bicubic prediction (r = 0)
        nn.init.zeros_(self.out.bias)

    def step(self, hidden: Tensor, code: Tensor, position: Tensor) -> tuple[Tensor, Tensor]:
        hidden = hidden + self.update(torch.cat([hidden, code, position], 1))
        return hidden, self.out(hidden)


class BinsHead(_StagedHead):
    """Multi-stage adaptive depth bins; returns per-stage residuals and the last stage's bins."""

    def __init__(self, channels: int, num_bins: int = 16, stages: int = 3, residual_range: float = 0.1,
                 range_scale: float = 0.5, min_range: float = 1e-3, detach_range: bool = True,
                 position_input: str = "r_over_s"):
        super().__init__(channels, num_bins, stages, residual_range)
        if position_input not in POSITION_INPUTS:
            raise ValueError(f"unknown position_input '{position_input}'; choose one of {', '.join(POSITION_INPUTS)}")
        self.range_scale, self.min_range, self.detach_range = range_scale, min_range, detach_range
        self.position_input = position_input
        self.prior = nn.Parameter(torch.zeros(2 * num_bins))  # (b_w, b_l)

    def forward(self, code: Tensor) -> dict:
        b, _, h, w = code.shape
        residual = code.new_zeros(b, 1, h, w)
        half = code.new_full((b, 1, h, w), self.residual_range)
        hidden, residuals, ranges = code, [], []
        for _ in range(self.stages):
            position = residual / half if self.position_input == "r_over_s" else residual / self.residual_range
            hidden, logits = self.step(hidden, code, position)
            logits = logits + self.prior.view(1, -1, 1, 1)
            widths = logits[:, : self.num_bins].softmax(1)
            probs = logits[:, self.num_bins:].softmax(1)
            centers = bin_centers(widths, residual - half, 2 * half)
            new_residual = (probs * centers).sum(1, keepdim=True)
            spread = bin_spread(probs, centers)
            new_half = torch.minimum((self.range_scale * spread).clamp_min(self.min_range), half)
            residuals.append(new_residual)
            ranges.append(half)
            residual, half = new_residual, new_half
            if self.detach_range:
                residual, half = residual.detach(), half.detach()
        return {"residuals": residuals, "probs": probs, "centers": centers, "ranges": ranges,
                "widths": 2 * ranges[-1] * widths, "entropy": entropy(probs)}


class RegressionHead(_StagedHead):
    """The plain additive head: each stage adds a regressed correction to the residual."""

    def __init__(self, channels: int, num_bins: int = 16, stages: int = 1, residual_range: float = 0.1):
        super().__init__(channels, num_bins, stages, residual_range)
        self.readout = nn.Conv2d(2 * num_bins, 1, 1, bias=False)

    def forward(self, code: Tensor) -> dict:
        b, _, h, w = code.shape
        residual = code.new_zeros(b, 1, h, w)
        hidden, residuals = code, []
        for _ in range(self.stages):
            hidden, features = self.step(hidden, code, residual / self.residual_range)
            residual = residual + self.readout(F.gelu(features))
            residuals.append(residual)
        return {"residuals": residuals}


def bin_centers(widths: Tensor, start: Tensor, span: Tensor) -> Tensor:
    """Centres of bins whose normalised widths (B, N, H, W) tile [start, start + span] per pixel."""
    edges_right = widths.cumsum(1)
    return start + span * (edges_right - 0.5 * widths)


def bin_spread(probs: Tensor, centers: Tensor) -> Tensor:
    """Per-pixel std of the bin distribution, sqrt(Σ_k p_k (c_k − Σ_j p_j c_j)²), (B, 1, H, W)."""
    mean = (probs * centers).sum(1, keepdim=True)
    return (probs * (centers - mean).pow(2)).sum(1, keepdim=True).clamp_min(1e-12).sqrt()


def expected_bin_width(probs: Tensor, widths: Tensor) -> Tensor:
    """Per-pixel Σ_k p_k·width_k (B, 1, H, W): the width of the bin a pixel's depth falls in, on average."""
    return (probs * widths).sum(1, keepdim=True)


def entropy(probs: Tensor) -> Tensor:
    """Per-pixel Shannon entropy (nats) of the bin distribution, (B, 1, H, W)."""
    return -(probs * probs.clamp_min(1e-12).log()).sum(1, keepdim=True)
