"""A DataLoader over in-memory tensors that fetches each batch with one index tensor per batch.

`DataLoader(TensorDataset(...), batch_size, shuffle)` reads a batch row by row and stacks the rows again: on a
small tabular model that costs more than the step (a 150-row full batch: ~0.6 ms of Python a step). Here the
sampler hands the dataset each batch as a slice of one index tensor (the epoch's permutation, drawn as
`RandomSampler` draws it: one seed from torch's global RNG per epoch, then `randperm`), and `TensorDataset`
gathers it in one go: the same batches, in the same order, from the same draws, so a run's numbers do not
move; no Python int per row is made (BatchSampler's way, ~20 µs a batch of 64). Only public torch APIs: a
`Sampler` of index tensors and a plain `DataLoader` with `batch_size=None`.
"""

from __future__ import annotations

from collections.abc import Iterator

import torch
from torch.utils.data import DataLoader, Dataset, Sampler, Subset


class IndexBatches(Sampler):
    """The batches `BatchSampler(RandomSampler(n) if shuffle else SequentialSampler(n), batch_size, drop_last)`
    yields, each as a slice of one index tensor; `rows` maps positions to rows (a Subset's indices)."""

    def __init__(self, n: int, batch_size: int, shuffle: bool, drop_last: bool, rows: torch.Tensor | None = None):
        if batch_size < 1:
            raise ValueError(f"batch_size must be a positive integer, got {batch_size}")
        if shuffle and n < 1:  # as RandomSampler refuses an empty dataset
            raise ValueError(f"num_samples should be a positive integer value, but got num_samples={n}")
        self.n, self.batch_size, self.shuffle, self.drop_last, self.rows = n, batch_size, shuffle, drop_last, rows

    def __len__(self) -> int:
        return self.n // self.batch_size if self.drop_last else -(-self.n // self.batch_size)

    def __iter__(self) -> Iterator[torch.Tensor]:
        if self.shuffle:  # RandomSampler without a generator: a seed from the global RNG at the first batch
            generator = torch.Generator()
            generator.manual_seed(int(torch.empty((), dtype=torch.int64).random_().item()))
            order = torch.randperm(self.n, generator=generator)
        else:
            order = torch.arange(self.n)
        if self.rows is not None:
            order = self.rows[order]
        for start in range(0, len(self) * self.batch_size, self.batch_size):
            yield order[start:start + self.batch_size]


def tensor_loader(dataset: Dataset, batch_size: int, shuffle: bool = False, drop_last: bool = False) -> DataLoader:
    """Batches of `dataset` (a `TensorDataset`, or a `Subset` of one) as `DataLoader(dataset, batch_size, shuffle,
    drop_last=drop_last)` yields them, each fetched as one gather of the underlying tensors."""
    n, rows = len(dataset), None
    while isinstance(dataset, Subset):  # a Subset reads a tensor index as a list would not: map through its rows
        index = torch.as_tensor(dataset.indices, dtype=torch.long)
        rows = index if rows is None else index[rows]
        dataset = dataset.dataset
    return DataLoader(dataset, batch_size=None, sampler=IndexBatches(n, batch_size, shuffle, drop_last, rows))
