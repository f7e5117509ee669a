"""A probe datamodule's three loaders: each split is one full batch (probes are small convex fits)."""

from __future__ import annotations

import lightning as L
from torch.utils.data import DataLoader


class FullBatchSplits(L.LightningDataModule):
    """Subclasses fill `self.splits` in `setup` and say in `_loader` how one split becomes one batch."""

    def _loader(self, split: str) -> DataLoader:
        raise NotImplementedError

    def train_dataloader(self):
        return self._loader("train")

    def val_dataloader(self):
        return self._loader("val")

    def test_dataloader(self):
        return self._loader("test")
