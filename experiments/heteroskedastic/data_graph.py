"""The paper-scale QM9 setting: APT's QM9 data module (reused through config, `base`), one target, and a
variance hold-out carved from its training split, so the four splits stay disjoint (Jordahn et al. 2026).

train = APT's train minus `holdout_fraction` of it (seeded by `split_seed`); val = APT's val (early
stopping); holdout = the carved part; test = APT's test. `target_std` is APT's `target_scale` for the target
(std x 1000 for energies: NLL and RMSE in meV).
"""

from __future__ import annotations

import lightning as L
import torch
from torch.utils.data import Dataset

from reprolab.cli.errors import ConfigError
from reprolab.config.extras import require


class OneTarget(Dataset):
    """A graph data set whose `y` keeps column `index` only."""

    def __init__(self, graphs, index: int):
        self.graphs, self.index = graphs, index

    def __len__(self) -> int:
        return len(self.graphs)

    def __getitem__(self, i):
        data = self.graphs[i].clone()
        data.y = data.y[:, self.index : self.index + 1]
        return data


class GraphHoldoutDataModule(L.LightningDataModule):
    def __init__(self, base, target: int = 2, holdout_fraction: float = 0.1, split_seed: int = 0,
                 batch_size: int = 120, num_workers: int = 4, fit_on: str = "train"):
        super().__init__()
        if not 0 < holdout_fraction < 1:
            raise ConfigError(f"data.holdout_fraction must be in (0, 1); got {holdout_fraction}")
        if fit_on not in ("train", "holdout"):
            raise ConfigError(f"data.fit_on must be 'train' or 'holdout'; got '{fit_on}'")
        self.base, self.target, self.holdout_fraction, self.split_seed = base, target, holdout_fraction, split_seed
        self.batch_size, self.num_workers, self.fit_on = batch_size, num_workers, fit_on
        self.sets: dict = {}
        self.target_mean, self.target_std = 0.0, None  # a shift of y moves no residual

    def setup(self, stage: str | None = None) -> None:
        if self.sets:
            return
        self.base.setup(stage)
        if not 0 <= self.target < len(self.base.target_scale):
            raise ConfigError(f"data.target={self.target} is not one of the {len(self.base.target_scale)} targets")
        train = self.base.sets["train"]
        perm = torch.randperm(len(train), generator=torch.Generator().manual_seed(self.split_seed))
        n_holdout = round(self.holdout_fraction * len(train))
        parts = {"train": train[perm[n_holdout:]], "holdout": train[perm[:n_holdout]],
                 "val": self.base.sets["val"], "test": self.base.sets["test"]}
        self.sets = {k: OneTarget(v, self.target) for k, v in parts.items()}
        self.target_std = float(self.base.target_scale[self.target])

    def loader(self, split: str, shuffle: bool = False):
        require("torch_geometric", "heteroskedastic")
        from torch_geometric.loader import DataLoader

        return DataLoader(self.sets[split], batch_size=self.batch_size, shuffle=shuffle, num_workers=self.num_workers)

    def train_dataloader(self):
        return self.loader(self.fit_on, shuffle=True)

    def val_dataloader(self):
        return self.loader("val")

    def test_dataloader(self):
        return self.loader("test")
