"""The epoch-seeded sampler: reproducible, a permutation per epoch, and shard-consistent under DDP."""

from __future__ import annotations

import math
from unittest import mock

import pytest
import torch

from reprolab.data.samplers import EpochShuffleSampler


def test_order_depends_only_on_seed_and_epoch():
    a, b = EpochShuffleSampler(50, seed=3), EpochShuffleSampler(50, seed=3)
    assert list(a) == list(b) and sorted(a) == list(range(50))
    a.set_epoch(1)
    assert list(a) != list(b)
    b.set_epoch(1)
    assert list(a) == list(b)
    assert list(EpochShuffleSampler(5, shuffle=False)) == [0, 1, 2, 3, 4]


def test_ranks_interleave_the_single_process_order():
    single = list(EpochShuffleSampler(11, seed=0))
    shards = []
    for rank in range(2):
        with mock.patch.object(EpochShuffleSampler, "_world", staticmethod(lambda r=rank: (r, 2))):
            sampler = EpochShuffleSampler(11, seed=0)
            shards.append(list(sampler))
            assert len(sampler) == 6
    merged = [shards[i % 2][i // 2] for i in range(12)]
    assert merged[:11] == single and merged[11] == single[0]  # padded with the first index


def hand_written_order(length: int, seed: int, epoch: int, rank: int, world: int, shuffle: bool) -> list[int]:
    """The sampler this project wrote before it became a `DistributedSampler` (the reference for equality)."""
    order = torch.randperm(length, generator=torch.Generator().manual_seed(seed + epoch)).tolist() if shuffle \
        else list(range(length))
    order += order[: math.ceil(length / world) * world - length]
    return order[rank::world]


@pytest.mark.parametrize(("length", "world"), [(11, 1), (11, 2), (50, 3), (64, 4), (3, 4)])
@pytest.mark.parametrize("shuffle", [True, False])
def test_same_indices_as_the_hand_written_sampler(length, world, shuffle):
    for rank in range(world):
        with mock.patch.object(EpochShuffleSampler, "_world", staticmethod(lambda r=rank, w=world: (r, w))):
            sampler = EpochShuffleSampler(length, seed=7, shuffle=shuffle)
            for epoch in range(3):
                sampler.set_epoch(epoch)
                assert list(sampler) == hand_written_order(length, 7, epoch, rank, world, shuffle)
                assert len(sampler) == math.ceil(length / world)
