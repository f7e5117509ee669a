"""The CPU claim problems (`experiments.apt.problems`: synthetic, digits, ENB2012) as a LightningDataModule.

`problem` is a callable returning a `Problem` (a `_partial_` of `problems.synthetic|digits|enb` in
`conf/data/mtl_{synthetic,digits,enb}.yaml`). Training batches are index batches of the whole tensors
(a `BatchSampler`, reshuffled each epoch, the last partial batch dropped), not per-example collation;
`target_scale` lets the MTL task report MAE in original units.
"""

from __future__ import annotations

from collections.abc import Callable

from torch.utils.data import TensorDataset

from experiments.apt.loaders import SplitDataModule
from experiments.apt.problems import Problem
from reprolab.data.tensor_loader import tensor_loader


class ProblemDataModule(SplitDataModule):
    def __init__(self, problem: Callable[[], Problem], batch_size: int = 64, eval_batch_size: int = 1000):
        super().__init__()
        self.problem, self.batch_size, self.eval_batch_size = problem, batch_size, eval_batch_size
        self.sets: dict = {}
        self.target_scale = None

    def setup(self, stage: str | None = None) -> None:
        if self.sets:
            return
        problem = self.problem()
        self.sets = {k: TensorDataset(problem.x[k], problem.y[k]) for k in ("train", "val", "test")}
        self.target_scale = problem.target_scale

    def make_loader(self, dataset, shuffle: bool):
        if shuffle:
            return tensor_loader(dataset, self.batch_size, shuffle=True, drop_last=True)
        return tensor_loader(dataset, self.eval_batch_size)
