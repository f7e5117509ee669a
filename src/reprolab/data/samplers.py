"""A shuffling sampler whose order depends only on (seed, epoch), so resumed runs see the same data."""

from __future__ import annotations

import torch
from torch.utils.data import Sampler


class EpochShuffleSampler(Sampler[int]):
    """Random permutation per epoch from `seed + epoch`; Lightning calls `set_epoch` each epoch."""

    def __init__(self, length: int, seed: int = 0):
        self.length, self.seed, self.epoch = length, seed, 0

    def set_epoch(self, epoch: int) -> None:
        self.epoch = epoch

    def __iter__(self):
        generator = torch.Generator().manual_seed(self.seed + self.epoch)
        return iter(torch.randperm(self.length, generator=generator).tolist())

    def __len__(self) -> int:
        return self.length
