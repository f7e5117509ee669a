"""DegBins network: D = D_up + r, with D_up the bicubic up-sampling of the LR depth and r the residual
predicted by a bins head (DegBins) or a regression head (baseline) on the degradation code of the
guided backbone. `head` is the only switch between the method and its baseline.

Making the degradation explicit (issue 14 §5; the abstract's "degradation-driven" bins, our reading): the code
c = (log2(scale) / 4, noise_std / 0.05) of each sample can condition Z by FiLM, Z ← Z ⊙ (1 + γ(c)) + β(c)
(`degradation_condition: film`; γ, β start at 0), and/or a linear read-out of the spatially pooled,
unconditioned Z estimates c (`estimate_degradation`; its loss is `task.degradation_loss_weight`). Both act
before the head, so the bins and regression heads keep equal parameter counts.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from experiments.degbins.backbone import GuidedBackbone
from experiments.degbins.heads import BinsHead, RegressionHead

HEADS = ("bins", "regression")
CONDITIONS = ("none", "film")
NOISE_UNIT = 0.05  # noise_std (normalised depth) that maps to 1 in the degradation code


def degradation_code(degradation: Tensor) -> Tensor:
    """(B, 2) raw (scale, noise_std) -> (B, 2) code (log2(scale) / 4, noise_std / NOISE_UNIT): x16 and 0.05 give 1."""
    return torch.stack([torch.log2(degradation[:, 0]) / 4, degradation[:, 1] / NOISE_UNIT], 1)


class FiLM(nn.Module):
    """Z ⊙ (1 + γ(c)) + β(c) with (γ, β) = MLP(c); the last layer starts at zero, so FiLM starts as the identity."""

    def __init__(self, channels: int, code_dim: int = 2):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(code_dim, channels), nn.GELU(), nn.Linear(channels, 2 * channels))
        nn.init.zeros_(self.net[-1].weight)
        nn.init.zeros_(self.net[-1].bias)

    def forward(self, z: Tensor, code: Tensor) -> Tensor:
        gamma, beta = self.net(code)[:, :, None, None].chunk(2, 1)
        return z * (1 + gamma) + beta


def bicubic_upsample(lr: Tensor, size: tuple[int, int]) -> Tensor:
    """The bicubic baseline and the network's starting point D_up."""
    return F.interpolate(lr, size=size, mode="bicubic", align_corners=False)


class DegBinsNet(nn.Module):
    """Guided DSR with a bins or regression residual head.

    forward(rgb (B,3,H,W), lr (B,1,H/s,W/s)) -> dict with `depth` (list, one (B,1,H,W) map per stage,
    the last is the prediction), `up` (D_up) and, for the bins head, `entropy`, `probs`, `centers`.
    """

    def __init__(self, head: str = "bins", channels: int = 32, dilations: Sequence[int] = (1, 2, 4, 1),
                 num_bins: int = 16, stages: int = 3, residual_range: float = 0.1, range_scale: float = 0.5,
                 min_range: float = 1e-3, detach_range: bool = True, unshuffle: int = 1,
                 degradation_condition: str = "none", estimate_degradation: bool = False,
                 position_input: str = "r_over_s"):
        super().__init__()
        if head not in HEADS:
            raise ValueError(f"unknown head '{head}'; choose one of {', '.join(HEADS)}")
        if degradation_condition not in CONDITIONS:
            raise ValueError(f"unknown degradation_condition '{degradation_condition}'; choose one of {', '.join(CONDITIONS)}")
        self.film = FiLM(channels) if degradation_condition == "film" else None
        self.estimator = nn.Linear(channels, 2) if estimate_degradation else None
        self.head_kind = head
        self.backbone = GuidedBackbone(channels, tuple(dilations), unshuffle)
        if head == "bins":
            self.head = BinsHead(channels, num_bins, stages, residual_range, range_scale, min_range, detach_range,
                                 position_input)
        else:
            self.head = RegressionHead(channels, num_bins, stages, residual_range)

    def forward(self, rgb: Tensor, lr: Tensor, degradation: Tensor | None = None) -> dict:
        """`degradation` (B, 2): each sample's raw (scale, noise_std); needed with `degradation_condition: film`."""
        if rgb.dim() != 4 or rgb.shape[1] != 3 or lr.dim() != 4 or lr.shape[1] != 1:
            raise ValueError(f"expected rgb (B,3,H,W) and lr (B,1,h,w); got {tuple(rgb.shape)}, {tuple(lr.shape)}")
        size = rgb.shape[-2:]
        if size[0] % lr.shape[-2] or size[1] % lr.shape[-1] or size[0] // lr.shape[-2] != size[1] // lr.shape[-1]:
            raise ValueError(f"rgb {tuple(size)} is not an integer up-scaling of lr {tuple(lr.shape[-2:])}")
        up = bicubic_upsample(lr, size)
        z = self.backbone(rgb, up)
        code = None if degradation is None else degradation_code(degradation.to(z))
        estimate = None if self.estimator is None else self.estimator(z.mean((2, 3)))
        if self.film is not None:
            if code is None:
                raise ValueError("degradation_condition=film needs each batch's `degradation` (scale, noise_std)")
            z = self.film(z, code)
        out = self.head(z)
        if estimate is not None:
            out["degradation_estimate"], out["degradation_code"] = estimate, code
        out["depth"] = [up + r for r in out.pop("residuals")]
        out["up"] = up
        return out


def degradation_error(estimate: Tensor, code: Tensor) -> Tensor:
    """Per-sample Euclidean distance ‖ĉ − c‖ between the estimated and the true degradation code (B,)."""
    return (estimate - code).norm(dim=1)


LOSSES = {"l1": F.l1_loss, "mse": F.mse_loss}


def stage_loss(depths: list[Tensor], gt: Tensor, decay: float = 0.8, kind: str = "l1", scale: float = 255.0) -> Tensor:
    """Deep supervision over stages: sum_t decay^(T-1-t) * loss(scale * D_t, scale * gt); the last stage
    weighs 1. `scale` puts normalised depth on a 0-255 range inside the loss: residuals of normalised
    depth are ~1e-2, and their gradients (~1e-8) would otherwise sit at Adam's epsilon and not train."""
    if kind not in LOSSES:
        raise ValueError(f"unknown loss '{kind}'; choose one of {', '.join(LOSSES)}")
    last = len(depths) - 1
    return sum(decay ** (last - t) * LOSSES[kind](scale * d, scale * gt) for t, d in enumerate(depths))


def count_parameters(module: nn.Module) -> int:
    return sum(p.numel() for p in module.parameters() if p.requires_grad)
