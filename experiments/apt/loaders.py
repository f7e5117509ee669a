"""The three loaders every APT datamodule exposes, built from `self.sets[split]` and `make_loader`."""

from __future__ import annotations

import lightning as L


class SplitDataModule(L.LightningDataModule):
    """Subclasses fill `self.sets = {"train": ..., "val": ..., "test": ...}` in `setup()` and define
    `make_loader(dataset, shuffle)`."""

    sets: dict

    def make_loader(self, dataset, shuffle: bool):  # pragma: no cover
        raise NotImplementedError

    def train_dataloader(self):
        return self.make_loader(self.sets["train"], True)

    def val_dataloader(self):
        return self.make_loader(self.sets["val"], False)

    def test_dataloader(self):
        return self.make_loader(self.sets["test"], False)


def image_loader(dataset, batch_size: int, shuffle: bool, num_workers: int):
    """A DataLoader for image batches: pinned memory on CUDA machines, persistent workers."""
    import torch
    from torch.utils.data import DataLoader

    return DataLoader(dataset, batch_size=batch_size, shuffle=shuffle, num_workers=num_workers,
                      pin_memory=torch.cuda.is_available(), persistent_workers=num_workers > 0)
