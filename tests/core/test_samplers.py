"""The epoch-seeded sampler: reproducible, a permutation per epoch, and shard-consistent under DDP."""

from __future__ import annotations

from unittest import mock

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
