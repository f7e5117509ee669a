"""Dense-prediction metrics of the MTAN / Nash-MTL protocol as torchmetrics states (sum over processes).

Segmentation: mIoU and pixel accuracy from a confusion matrix (pixels labelled −1 are ignored).
Depth: absolute and relative error over valid pixels (ground truth ≠ 0).
Surface normals: angle error (degrees) mean and median, and % of pixels within 11.25°, 22.5°, 30°; the median
comes from a 0.01° histogram, so no per-pixel buffer of the whole test set is kept.
"""

from __future__ import annotations

import torch
from torch import Tensor
from torchmetrics import Metric


class SegmentationMetric(Metric):
    def __init__(self, num_classes: int):
        super().__init__()
        self.num_classes = num_classes
        self.add_state("confusion", torch.zeros(num_classes, num_classes, dtype=torch.long), dist_reduce_fx="sum")

    def update(self, logits: Tensor, target: Tensor) -> None:
        pred = logits.argmax(1).flatten()
        target = target.flatten().long()
        keep = target >= 0
        idx = target[keep] * self.num_classes + pred[keep]
        self.confusion += torch.bincount(idx, minlength=self.num_classes**2).reshape(self.num_classes, -1)

    def compute(self) -> dict[str, Tensor]:
        c = self.confusion.double()
        inter = c.diagonal()
        union = c.sum(0) + c.sum(1) - inter
        present = union > 0
        miou = (inter[present] / union[present]).mean() if present.any() else torch.tensor(0.0)
        return {"seg_miou": 100 * miou, "seg_pixacc": 100 * inter.sum() / c.sum().clamp_min(1)}


class DepthMetric(Metric):
    def __init__(self):
        super().__init__()
        for name in ("abs_sum", "rel_sum", "count"):
            self.add_state(name, torch.zeros((), dtype=torch.float64), dist_reduce_fx="sum")

    def update(self, pred: Tensor, target: Tensor) -> None:
        valid = target != 0
        err = (pred - target).abs()[valid].double()
        self.abs_sum += err.sum()
        self.rel_sum += (err / target[valid].abs().double()).sum()
        self.count += valid.sum()

    def compute(self) -> dict[str, Tensor]:
        n = self.count.clamp_min(1)
        return {"depth_abs": self.abs_sum / n, "depth_rel": self.rel_sum / n}


class NormalMetric(Metric):
    BINS = 18000  # 0.01° per bin over [0°, 180°]

    def __init__(self):
        super().__init__()
        self.add_state("hist", torch.zeros(self.BINS, dtype=torch.long), dist_reduce_fx="sum")
        self.add_state("angle_sum", torch.zeros((), dtype=torch.float64), dist_reduce_fx="sum")

    def update(self, pred: Tensor, target: Tensor) -> None:
        valid = target.abs().sum(1) > 0  # (B, H, W)
        pred = torch.nn.functional.normalize(pred, dim=1)
        cos = (pred * target).sum(1)[valid].clamp(-1, 1)
        angle = torch.rad2deg(torch.acos(cos))
        self.angle_sum += angle.double().sum()
        self.hist += torch.bincount((angle / 0.01).long().clamp(max=self.BINS - 1), minlength=self.BINS)

    def compute(self) -> dict[str, Tensor]:
        n = self.hist.sum().clamp_min(1)
        cdf = self.hist.cumsum(0).double() / n
        median = (torch.searchsorted(cdf, torch.tensor(0.5, dtype=torch.float64)).double() + 0.5) * 0.01
        within = {t: 100 * cdf[int(round(t / 0.01)) - 1] for t in (11.25, 22.5, 30.0)}
        return {"normal_mean": self.angle_sum / n, "normal_median": median, "normal_11.25": within[11.25],
                "normal_22.5": within[22.5], "normal_30": within[30.0]}
