"""Losses and metrics of the four APT benchmarks (+ ENB2012 for the CPU preset), behind `MTLBenchmark`.

Dense (NYUv2, Cityscapes; MTAN/Nash-MTL code conventions): segmentation cross-entropy ignoring label −1,
depth L1 on pixels with depth ≠ 0, normals 1 − cos on pixels with a non-zero normal.
CelebA: 40 binary cross-entropies, F1 per attribute (FAMO protocol) and their mean.
QM9 / ENB / synthetic: MSE on standardised targets, MAE per target in the reported units.
Digits (CPU claim): one cross-entropy per task, accuracy in % per task.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch
import torch.nn.functional as F
from torch import Tensor, nn
from torchmetrics import Metric

from reprolab.cli.errors import ConfigError
from reprolab.mtl.benchmark import STAGES, MTLBenchmark
from reprolab.mtl.dense_metrics import DepthMetric, NormalMetric, SegmentationMetric
from reprolab.mtl.metrics import (
    CITYSCAPES_HIGHER,
    CITYSCAPES_STL,
    NYUV2_HIGHER,
    NYUV2_STL,
    QM9_STL,
    QM9_TARGETS,
)


class _Staged(MTLBenchmark):
    """Keeps one metric collection per stage (train / val / test)."""

    def _init_stages(self, make: callable) -> None:
        self.stage_metrics = nn.ModuleDict({f"{s}_": make() for s in STAGES})  # "train" is an nn.Module method

    def metrics_of(self, stage: str) -> nn.ModuleDict:
        return self.stage_metrics[f"{stage}_"]

    def compute(self, stage: str) -> dict[str, float]:
        out = {}
        for metric in self.metrics_of(stage).values():
            out.update({k: float(v) for k, v in metric.compute().items()})
        return out

    def reset(self, stage: str) -> None:
        for metric in self.metrics_of(stage).values():
            metric.reset()


class DenseBenchmark(_Staged):
    """NYUv2 (seg 13 classes, depth, normal) or Cityscapes (seg 7 classes, depth). Targets: dict of tensors."""

    def __init__(self, tasks: Sequence[str] = ("seg", "depth", "normal"), num_classes: int = 13,
                 baseline: str | None = "nyuv2"):
        super().__init__()
        unknown = set(tasks) - {"seg", "depth", "normal"}
        if unknown:
            raise ConfigError(f"dense tasks {sorted(unknown)} unknown; use seg, depth, normal")
        self.task_names = tuple(tasks)
        self.num_classes = num_classes
        tables = {"nyuv2": (NYUV2_HIGHER, NYUV2_STL), "cityscapes": (CITYSCAPES_HIGHER, CITYSCAPES_STL)}
        self.higher, self.stl = tables.get(baseline, (self._higher(), None))
        makers = {"seg": lambda: SegmentationMetric(num_classes), "depth": DepthMetric, "normal": NormalMetric}
        self._init_stages(lambda: nn.ModuleDict({t: makers[t]() for t in self.task_names}))

    def _higher(self) -> dict[str, bool]:
        return {k: v for k, v in NYUV2_HIGHER.items() if k.split("_")[0] in self.task_names}

    def losses(self, outputs: list[Tensor], targets: dict) -> list[Tensor]:
        out = []
        for name, pred in zip(self.task_names, outputs, strict=True):
            y = targets[name]
            if name == "seg":
                out.append(F.cross_entropy(pred, y.long(), ignore_index=-1))
            elif name == "depth":
                mask = (y != 0).float()
                out.append(((pred - y).abs() * mask).sum() / mask.sum().clamp_min(1))
            else:
                mask = (y.abs().sum(1, keepdim=True) > 0).float()
                cos = (F.normalize(pred, dim=1) * y).sum(1, keepdim=True)
                out.append(((1 - cos) * mask).sum() / mask.sum().clamp_min(1))
        return out

    @torch.no_grad()
    def update(self, stage: str, outputs: list[Tensor], targets: dict) -> None:
        for name, pred in zip(self.task_names, outputs, strict=True):
            self.metrics_of(stage)[name].update(pred.float(), targets[name])


class _PerTaskMean(Metric):
    """Mean over examples of a per-example value per task, fed as (B, T) (absolute errors, hits)."""

    def __init__(self, n: int):
        super().__init__()
        self.add_state("total", torch.zeros(n, dtype=torch.float64), dist_reduce_fx="sum")
        self.add_state("count", torch.zeros((), dtype=torch.float64), dist_reduce_fx="sum")

    def update(self, values: Tensor) -> None:
        self.total += values.double().sum(0)
        self.count += values.shape[0]

    def compute(self) -> Tensor:
        return self.total / self.count.clamp_min(1)


class RegressionBenchmark(_Staged):
    """T scalar regression targets (B, T), standardised; MAE_t = mean|ŷ − y| · scale_t in reported units."""

    def __init__(self, task_names: Sequence[str], scale: Sequence[float] | None = None,
                 stl: dict[str, float] | None = None):
        super().__init__()
        self.task_names = tuple(task_names)
        self.register_buffer("scale", torch.tensor(scale if scale is not None else [1.0] * len(task_names)))
        self.higher = {k: False for k in self.task_names}
        self.stl = stl
        self._init_stages(lambda: nn.ModuleDict({"mae": _PerTaskMean(len(self.task_names))}))

    def _targets(self, targets) -> Tensor:
        return targets

    def losses(self, outputs: list[Tensor], targets) -> list[Tensor]:
        y = self._targets(targets)
        if y.ndim != 2 or y.shape[1] != self.n_tasks:
            raise ConfigError(f"expected targets of shape (B, {self.n_tasks}), got {tuple(y.shape)}")
        return [F.mse_loss(o.reshape(-1), y[:, t]) for t, o in enumerate(outputs)]

    @torch.no_grad()
    def update(self, stage: str, outputs: list[Tensor], targets) -> None:
        pred = torch.stack([o.reshape(-1) for o in outputs], 1).float()
        self.metrics_of(stage)["mae"].update((pred - self._targets(targets).float()).abs())

    def compute(self, stage: str) -> dict[str, float]:
        mae = self.metrics_of(stage)["mae"].compute() * self.scale.double()
        return dict(zip(self.task_names, mae.tolist(), strict=True))


class QM9Benchmark(RegressionBenchmark):
    """QM9, 11 targets (Nash-MTL's choice and units). Batches are PyG `Batch`es with `y` (B, 11) standardised
    by the datamodule; `scale` = std × unit factor (eV → meV for the energies)."""

    def __init__(self, scale: Sequence[float] | None = None, compare_to_paper_stl: bool = True):
        super().__init__(QM9_TARGETS, scale, QM9_STL if compare_to_paper_stl else None)

    def split(self, batch):
        return batch, batch

    def _targets(self, targets) -> Tensor:
        return targets.y


class ClassificationBenchmark(_Staged):
    """T multi-class tasks, targets (B, T) of class indices: cross-entropy per task; `<task>_acc` in %."""

    def __init__(self, task_names: Sequence[str]):
        super().__init__()
        self.task_names = tuple(task_names)
        self.higher = {f"{t}_acc": True for t in self.task_names}
        self.stl = None
        self._init_stages(lambda: nn.ModuleDict({"acc": _PerTaskMean(len(self.task_names))}))

    def losses(self, outputs: list[Tensor], targets: Tensor) -> list[Tensor]:
        if targets.ndim != 2 or targets.shape[1] != self.n_tasks:
            raise ConfigError(f"expected class indices of shape (B, {self.n_tasks}), got {tuple(targets.shape)}")
        return [F.cross_entropy(o, targets[:, t].long()) for t, o in enumerate(outputs)]

    @torch.no_grad()
    def update(self, stage: str, outputs: list[Tensor], targets: Tensor) -> None:
        predicted = torch.stack([o.argmax(-1) for o in outputs], 1)
        self.metrics_of(stage)["acc"].update(predicted == targets.long())

    def compute(self, stage: str) -> dict[str, float]:
        acc = 100 * self.metrics_of(stage)["acc"].compute()
        return {f"{t}_acc": float(v) for t, v in zip(self.task_names, acc, strict=True)}


class _F1(Metric):
    def __init__(self, n: int):
        super().__init__()
        for name in ("tp", "fp", "fn"):
            self.add_state(name, torch.zeros(n, dtype=torch.float64), dist_reduce_fx="sum")

    def update(self, logits: Tensor, target: Tensor) -> None:
        pred, target = logits > 0, target > 0.5
        self.tp += (pred & target).double().sum(0)
        self.fp += (pred & ~target).double().sum(0)
        self.fn += (~pred & target).double().sum(0)

    def compute(self) -> Tensor:
        return 100 * 2 * self.tp / (2 * self.tp + self.fp + self.fn).clamp_min(1)


class CelebABenchmark(_Staged):
    """40 binary attributes, one task each (FAMO's CelebA protocol): BCE; F1 per attribute and its mean."""

    def __init__(self, attributes: Sequence[str] | None = None, n_attributes: int = 40):
        super().__init__()
        self.task_names = tuple(attributes) if attributes else tuple(f"attr{i}" for i in range(n_attributes))
        self.higher = {f"f1_{a}": True for a in self.task_names}
        self.stl = None  # set from your own single-task runs (FAMO's table is per attribute)
        self._init_stages(lambda: nn.ModuleDict({"f1": _F1(len(self.task_names))}))

    def losses(self, outputs: list[Tensor], targets: Tensor) -> list[Tensor]:
        return [F.binary_cross_entropy_with_logits(o.reshape(-1), targets[:, t].float()) for t, o in enumerate(outputs)]

    @torch.no_grad()
    def update(self, stage: str, outputs: list[Tensor], targets: Tensor) -> None:
        self.metrics_of(stage)["f1"].update(torch.stack([o.reshape(-1) for o in outputs], 1).float(), targets)

    def compute(self, stage: str) -> dict[str, float]:
        f1 = self.metrics_of(stage)["f1"].compute()
        out = {f"f1_{a}": float(v) for a, v in zip(self.task_names, f1, strict=True)}
        out["f1_mean"] = float(f1.mean())
        return out
