"""ENB2012 (two-target regression) as a LightningDataModule, for the CPU preset of the MTL trainer path.

Reads ../shared/data/energy-efficiency-enb2012/energy_efficiency_clean.csv through
`experiments.apt.problems.enb` (60/20/20 split, standardised inputs and targets); `target_scale` lets the
MTL task report MAE in kWh/m².
"""

from __future__ import annotations

from torch.utils.data import DataLoader, TensorDataset

from experiments.apt.loaders import SplitDataModule
from experiments.apt.problems import enb


class ENBDataModule(SplitDataModule):
    def __init__(self, data_dir: str, batch_size: int = 64, split_seed: int = 0, num_workers: int = 0):
        super().__init__()
        self.data_dir, self.batch_size, self.split_seed, self.num_workers = data_dir, batch_size, split_seed, num_workers
        self.target_scale = None

    def setup(self, stage: str | None = None) -> None:
        problem = enb(self.data_dir, seed=self.split_seed)
        self.sets = {k: TensorDataset(problem.x[k], problem.y[k]) for k in ("train", "val", "test")}
        self.target_scale = problem.target_scale

    def make_loader(self, dataset, shuffle: bool):
        return DataLoader(dataset, batch_size=self.batch_size, shuffle=shuffle, num_workers=self.num_workers)
