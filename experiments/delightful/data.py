"""Environments generated per batch: the handwritten-digit contextual bandit and the token-reversal prompts.

Training item i is a whole batch drawn from a generator seeded by (seed, i), so a run is reproducible
and resumable; the trainer's `max_steps` sets how many batches there are (`data.num_batches`).
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import product

import lightning as L
import torch
from torch.utils.data import DataLoader, Dataset, TensorDataset

from reprolab.cli.errors import ConfigError
from reprolab.data.digits import fake_digits_arrays, load_digits_arrays


class GeneratedBatches(Dataset):
    """`num_batches` batches, batch i = make_batch(torch.Generator seeded with seed·1_000_003 + i)."""

    def __init__(self, make_batch: Callable[[torch.Generator], object], num_batches: int, seed: int):
        self.make_batch, self.num_batches, self.seed = make_batch, num_batches, seed

    def __len__(self) -> int:
        return self.num_batches

    def __getitem__(self, i: int):
        return self.make_batch(torch.Generator().manual_seed(self.seed * 1_000_003 + i))


class DigitsBanditDataModule(L.LightningDataModule):
    """Contextual bandit on handwritten digits (2603.14608 §3): a context is an image, reward 1 iff action = label.

    Training batches are contexts drawn with replacement; val (carved from train) and test (held out)
    score the greedy policy's error.
    """

    def __init__(self, source: str = "digits", data_dir: str = "data", download: bool = False, batch_size: int = 64,
                 eval_batch_size: int = 512, num_batches: int = 1000, val_size: int = 180, seed: int = 0,
                 num_classes: int = 10):
        super().__init__()
        self.source, self.data_dir, self.download = source, data_dir, download
        self.batch_size, self.eval_batch_size, self.num_batches = batch_size, eval_batch_size, num_batches
        self.val_size, self.seed, self.num_classes = val_size, seed, num_classes

    def setup(self, stage: str | None = None) -> None:
        self.split_arrays(*load_digits_arrays(self.source, self.data_dir, self.download))

    def fake_setup(self, stage: str | None = None) -> None:
        """Random pixels in the source's sizes (reprolab.data.fake)."""
        self.split_arrays(*fake_digits_arrays(self.source, self.seed))

    def split_arrays(self, x, y, x_test, y_test) -> None:
        order = torch.randperm(len(y), generator=torch.Generator().manual_seed(1))
        val, train = order[: self.val_size], order[self.val_size:]
        self.x_train, self.y_train = x[train], y[train]
        self.val_set, self.test_set = TensorDataset(x[val], y[val]), TensorDataset(x_test, y_test)

    def contexts(self, generator: torch.Generator) -> tuple[torch.Tensor, torch.Tensor]:
        idx = torch.randint(len(self.y_train), (self.batch_size,), generator=generator)
        return self.x_train[idx], self.y_train[idx]

    def train_dataloader(self) -> DataLoader:
        return DataLoader(GeneratedBatches(self.contexts, self.num_batches, self.seed), batch_size=None)

    def val_dataloader(self) -> DataLoader:
        return DataLoader(self.val_set, batch_size=self.eval_batch_size)

    def test_dataloader(self) -> DataLoader:
        return DataLoader(self.test_set, batch_size=self.eval_batch_size)


def reversal_eval_prompts(length: int, count: int, generator: torch.Generator) -> torch.Tensor:
    """All 2^length prompts when there are at most `count`, else `count` random ones."""
    if 2**length <= count:
        return torch.tensor(list(product((0, 1), repeat=length)))
    return torch.randint(0, 2, (count, length), generator=generator)


class ReversalDataModule(L.LightningDataModule):
    """Token reversal (2603.14608 §5): a binary prompt of length n ∈ [min_length, max_length]; answer = its reverse.

    Each training batch has one length, drawn uniformly; val/test hold one batch per length.
    """

    def __init__(self, min_length: int = 1, max_length: int = 6, batch_size: int = 64, num_batches: int = 1000,
                 eval_size: int = 128, seed: int = 0):
        super().__init__()
        if not 1 <= min_length <= max_length:
            raise ConfigError(f"reversal needs 1 <= data.min_length <= data.max_length, got {min_length}, {max_length}")
        self.min_length, self.max_length = min_length, max_length
        self.batch_size, self.num_batches, self.eval_size, self.seed = batch_size, num_batches, eval_size, seed

    def prompts(self, generator: torch.Generator) -> torch.Tensor:
        length = int(torch.randint(self.min_length, self.max_length + 1, (), generator=generator))
        return torch.randint(0, 2, (self.batch_size, length), generator=generator)

    def _eval_batches(self, offset: int) -> list[torch.Tensor]:
        generator = torch.Generator().manual_seed(10_007 + offset)  # fixed across seeds and arms
        return [reversal_eval_prompts(n, self.eval_size, generator) for n in range(self.min_length, self.max_length + 1)]

    def train_dataloader(self) -> DataLoader:
        return DataLoader(GeneratedBatches(self.prompts, self.num_batches, self.seed), batch_size=None)

    def val_dataloader(self) -> DataLoader:
        return DataLoader(self._eval_batches(0), batch_size=None)

    def test_dataloader(self) -> DataLoader:
        return DataLoader(self._eval_batches(1), batch_size=None)
