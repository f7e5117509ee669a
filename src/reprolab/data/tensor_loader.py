"""A DataLoader over in-memory tensors that fetches each batch with one index per tensor.

`DataLoader(TensorDataset(...), batch_size, shuffle)` reads a batch row by row and stacks the rows again: on a
small tabular model that costs more than the step (a 150-row full batch: ~0.6 ms of Python a step). Here the
sampler hands the dataset the batch's index list and `TensorDataset[list]` gathers it in one go: the same
batches, in the same order, from the same draws of torch's global RNG (same samplers, same seeds), so
a run's numbers do not move.
"""

from __future__ import annotations

from torch.utils.data import BatchSampler, DataLoader, Dataset, RandomSampler, SequentialSampler


def tensor_loader(dataset: Dataset, batch_size: int, shuffle: bool = False, drop_last: bool = False) -> DataLoader:
    """Batches of `dataset` (a `TensorDataset`, or a `Subset` of one) as `DataLoader(dataset, batch_size, shuffle,
    drop_last=drop_last)` yields them, each fetched as `dataset[indices]`."""
    order = RandomSampler(dataset) if shuffle else SequentialSampler(dataset)
    return DataLoader(dataset, batch_size=None, sampler=BatchSampler(order, batch_size, drop_last))
