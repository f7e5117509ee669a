"""What an MTL benchmark tells the shared MTL task: how to read a batch, the T losses, and the metrics.

A benchmark is an `nn.Module` (so its torchmetrics states move to the device and sync across processes):
`split(batch) → (inputs, targets)`, `losses(outputs, targets) → list of T scalars`,
`update(stage, outputs, targets)`, `compute(stage) → {metric: float}` (then `reset(stage)`), plus
`task_names`, `higher` (metric → higher is better) and optional single-task baselines `stl` for Δm%.
"""

from __future__ import annotations

from torch import Tensor, nn

STAGES = ("train", "val", "test")


class MTLBenchmark(nn.Module):
    task_names: tuple[str, ...] = ()
    higher: dict[str, bool] = {}
    stl: dict[str, float] | None = None

    @property
    def n_tasks(self) -> int:
        return len(self.task_names)

    def split(self, batch) -> tuple[object, object]:
        inputs, targets = batch
        return inputs, targets

    def losses(self, outputs: list[Tensor], targets) -> list[Tensor]:  # pragma: no cover
        raise NotImplementedError

    def update(self, stage: str, outputs: list[Tensor], targets) -> None:  # pragma: no cover
        raise NotImplementedError

    def compute(self, stage: str) -> dict[str, float]:  # pragma: no cover
        raise NotImplementedError

    def reset(self, stage: str) -> None:  # pragma: no cover
        raise NotImplementedError
