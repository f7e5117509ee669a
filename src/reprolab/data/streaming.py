"""Streaming synthetic data: a fresh batch from a seeded generator at every training step (no epochs).

`stream` is any object with `sample(generator, batch_size) -> batch` (e.g. a regression problem whose
inputs have a given covariance); it may keep state the task reads (the true weights of a target), and a
stream with an `advance(generator)` method (a drifting target) is advanced once after every training
batch, never by evaluation batches. Training batches come from `torch.Generator().manual_seed(seed)`, so two runs with one seed see
the same stream; validation and test are `eval_batches` batches drawn once from a second generator
(`seed + EVAL_SEED_OFFSET`), so evaluation never consumes training samples.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Protocol

import lightning as L
import torch
from torch.utils.data import DataLoader, IterableDataset

EVAL_SEED_OFFSET = 1_000_003


class Stream(Protocol):
    def sample(self, generator: torch.Generator, batch_size: int) -> Any: ...


class StreamDataset(IterableDataset):
    """Endless batches `stream.sample(generator, batch_size)` from a generator seeded at each `iter()`."""

    def __init__(self, stream: Stream, batch_size: int, seed: int):
        self.stream, self.batch_size, self.seed = stream, batch_size, seed

    def __iter__(self) -> Iterator[Any]:
        generator = torch.Generator().manual_seed(self.seed)
        while True:
            batch = self.stream.sample(generator, self.batch_size)
            if hasattr(self.stream, "advance"):
                self.stream.advance(generator)
            yield batch


class StreamingDataModule(L.LightningDataModule):
    def __init__(self, stream: Stream, batch_size: int, seed: int = 0, eval_batches: int = 1,
                 eval_batch_size: int | None = None):
        super().__init__()
        if batch_size < 1 or eval_batches < 1:
            raise ValueError(f"batch_size ({batch_size}) and eval_batches ({eval_batches}) must be ≥ 1")
        if not callable(getattr(stream, "sample", None)):
            raise TypeError(f"stream {type(stream).__name__} has no sample(generator, batch_size) method")
        self.stream, self.batch_size, self.seed = stream, batch_size, seed
        self.eval_batches, self.eval_batch_size = eval_batches, eval_batch_size or batch_size

    def train_dataloader(self) -> DataLoader:
        return DataLoader(StreamDataset(self.stream, self.batch_size, self.seed), batch_size=None)

    def _eval_loader(self) -> DataLoader:
        generator = torch.Generator().manual_seed(self.seed + EVAL_SEED_OFFSET)
        batches = [self.stream.sample(generator, self.eval_batch_size) for _ in range(self.eval_batches)]
        return DataLoader(batches, batch_size=None)

    def val_dataloader(self) -> DataLoader:
        return self._eval_loader()

    def test_dataloader(self) -> DataLoader:
        return self._eval_loader()
