"""Handwritten digits as images for the source networks: sklearn's bundled 8×8 digits offline, or MNIST.

The arrays come from the delightful package's loader (one fixed held-out fifth for digits; MNIST's own
test split); images are returned as [1, side, side] so the shared classification task accepts them.
"""

from __future__ import annotations

import lightning as L
import torch
from torch.utils.data import DataLoader, TensorDataset

from reprolab.data.digits import fake_digits_arrays, load_digits_arrays


def digits_images(source: str, data_dir: str, download: bool) -> tuple[torch.Tensor, ...]:
    return as_images(*load_digits_arrays(source, data_dir, download))


def as_images(x, y, x_test, y_test) -> tuple[torch.Tensor, ...]:
    side = int(x.shape[1] ** 0.5)
    return x.view(-1, 1, side, side), y, x_test.view(-1, 1, side, side), y_test


class DigitsDataModule(L.LightningDataModule):
    """Train (minus `val_size` held out by a fixed permutation), val, test; batches of (images, labels)."""

    def __init__(self, source: str = "digits", data_dir: str = "data", download: bool = False, batch_size: int = 64,
                 eval_batch_size: int = 512, val_size: int = 180, num_classes: int = 10):
        super().__init__()
        self.source, self.data_dir, self.download = source, data_dir, download
        self.batch_size, self.eval_batch_size, self.val_size = batch_size, eval_batch_size, val_size
        self.num_classes = num_classes

    def setup(self, stage: str | None = None) -> None:
        self.split_images(*digits_images(self.source, self.data_dir, self.download))

    def fake_setup(self, stage: str | None = None) -> None:
        """Random pixels in the source's sizes (reprolab.data.fake)."""
        self.split_images(*as_images(*fake_digits_arrays(self.source)))

    def split_images(self, x, y, x_test, y_test) -> None:
        order = torch.randperm(len(y), generator=torch.Generator().manual_seed(1))
        val, train = order[: self.val_size], order[self.val_size:]
        self.train_set, self.val_set = TensorDataset(x[train], y[train]), TensorDataset(x[val], y[val])
        self.test_set = TensorDataset(x_test, y_test)

    def train_dataloader(self):
        return DataLoader(self.train_set, batch_size=self.batch_size, shuffle=True)

    def val_dataloader(self):
        return DataLoader(self.val_set, batch_size=self.eval_batch_size)

    def test_dataloader(self):
        return DataLoader(self.test_set, batch_size=self.eval_batch_size)
