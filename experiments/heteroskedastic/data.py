"""A tabular regression data module with four disjoint splits: train / early-stopping (val) / variance
hold-out / test, a function of `split_seed` only, so every arm sees the same rows.

Inputs and target are standardised with the train split's statistics; `target_std` converts predictions
back to the original units. Batches are (x, y, σ) with σ the true noise std in standardised units (NaN
where unknown). `fit_on=holdout` makes the training loader the hold-out, as one full batch repeated
`holdout_steps` times (the post-hoc variance stage); the training split is then never loaded.
`fit_on=train_holdout` trains on the train and hold-out rows together (an end-to-end arm that sees every row the
two post-hoc stages see between them; issue 36), still standardised by the train split's statistics.
"""

from __future__ import annotations

import lightning as L
import torch
from torch.utils.data import DataLoader, Subset, TensorDataset

from experiments.heteroskedastic.datasets import load
from reprolab.cli.errors import ConfigError
from reprolab.data.tensor_loader import tensor_loader

SPLITS = ("train", "val", "holdout", "test")


def split_indices(n: int, fractions: dict[str, float], split_seed: int) -> dict[str, torch.Tensor]:
    """One seeded permutation cut into consecutive blocks (test takes the remainder)."""
    if set(fractions) != set(SPLITS[:3]) or min(fractions.values()) <= 0 or sum(fractions.values()) >= 1:
        raise ConfigError(f"data.fractions must give train, val and holdout, each > 0, summing below 1 "
                          f"(test takes the rest); got {dict(fractions)}")
    perm = torch.randperm(n, generator=torch.Generator().manual_seed(split_seed))
    sizes = [round(fractions[k] * n) for k in SPLITS[:3]]
    cuts = torch.tensor([0, *sizes]).cumsum(0).tolist() + [n]
    return {k: perm[a:b] for k, a, b in zip(SPLITS, cuts[:-1], cuts[1:], strict=True)}


class TabularRegressionDataModule(L.LightningDataModule):
    def __init__(self, name: str, data_dir: str = "data", split_seed: int = 0, batch_size: int = 64,
                 fractions: dict | None = None, fit_on: str = "train", holdout_steps: int = 200,
                 n: int = 1000, generator_seed: int = 0, in_features: int | None = None):
        super().__init__()
        if fit_on not in ("train", "holdout", "train_holdout"):
            raise ConfigError(f"data.fit_on must be 'train' (the mean / end-to-end stage), 'holdout' (the post-hoc "
                              f"variance stage) or 'train_holdout' (end to end on both); got '{fit_on}'")
        self.name, self.data_dir, self.split_seed, self.batch_size = name, data_dir, split_seed, batch_size
        self.fractions = dict(fractions or {"train": 0.5, "val": 0.15, "holdout": 0.2})
        self.fit_on, self.holdout_steps, self.n, self.generator_seed = fit_on, holdout_steps, n, generator_seed
        self.sets: dict[str, TensorDataset] = {}
        self.indices: dict[str, torch.Tensor] = {}
        self.target_mean = self.target_std = None
        self.in_features = in_features

    def setup(self, stage: str | None = None) -> None:
        if self.sets:
            return
        table = load(self.name, self.data_dir, self.n, self.generator_seed)
        self.indices = split_indices(len(table.y), self.fractions, self.split_seed)
        train = self.indices["train"]
        x_mean, x_std = table.x[train].mean(0), table.x[train].std(0).clamp_min(1e-8)
        self.target_mean, self.target_std = float(table.y[train].mean()), float(table.y[train].std())
        x = (table.x - x_mean) / x_std
        y = (table.y - self.target_mean) / self.target_std
        sigma = table.sigma / self.target_std if table.sigma is not None else torch.full_like(y, float("nan"))
        if self.in_features not in (None, x.shape[1]):
            raise ConfigError(f"data.in_features={self.in_features} but '{self.name}' has {x.shape[1]} inputs")
        self.in_features = x.shape[1]
        self.sets = {k: TensorDataset(x[i], y[i], sigma[i]) for k, i in self.indices.items()}

    def loader(self, split: str, shuffle: bool = False) -> DataLoader:
        """Training batches of `batch_size`; an evaluation split as one batch (its metrics see the whole split)."""
        return tensor_loader(self.sets[split], self.batch_size if shuffle else len(self.sets[split]), shuffle=shuffle)

    def train_dataloader(self) -> DataLoader:
        if self.fit_on == "train":
            return self.loader("train", shuffle=True)
        if self.fit_on == "train_holdout":
            pair = (self.sets["train"].tensors, self.sets["holdout"].tensors)
            both = TensorDataset(*(torch.cat(parts) for parts in zip(*pair, strict=True)))
            return tensor_loader(both, self.batch_size, shuffle=True)
        holdout = self.sets["holdout"]
        repeated = Subset(holdout, list(range(len(holdout))) * self.holdout_steps)
        return tensor_loader(repeated, len(holdout))

    def val_dataloader(self) -> DataLoader:
        return self.loader("val")

    def test_dataloader(self) -> DataLoader:
        return self.loader("test")
