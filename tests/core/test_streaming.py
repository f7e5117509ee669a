"""The streaming datamodule: fresh seeded batches every step, fixed evaluation batches, advance() per batch."""

from __future__ import annotations

import itertools

import pytest
import torch

from reprolab.data.streaming import StreamingDataModule


class Counter:
    """A stream of N(0, 1) vectors that counts how often it was advanced."""

    def __init__(self):
        self.advanced = 0

    def sample(self, generator, batch_size):
        return torch.randn(batch_size, 3, generator=generator)

    def advance(self, generator):
        self.advanced += 1


def take(loader, n):
    return list(itertools.islice(iter(loader), n))


def test_same_seed_same_stream_other_seed_other_stream():
    a, b, c = (StreamingDataModule(Counter(), batch_size=4, seed=s) for s in (0, 0, 1))
    first, again, other = (take(dm.train_dataloader(), 3) for dm in (a, b, c))
    assert all(torch.equal(x, y) for x, y in zip(first, again, strict=True))
    assert not torch.equal(first[0], other[0])
    assert not torch.equal(first[0], first[1])  # a fresh batch each step
    assert first[0].shape == (4, 3)


def test_evaluation_batches_are_fixed_and_do_not_advance_the_stream():
    stream = Counter()
    dm = StreamingDataModule(stream, batch_size=4, seed=0, eval_batches=2, eval_batch_size=5)
    val, val_again = list(dm.val_dataloader()), list(dm.val_dataloader())
    assert len(val) == 2 and val[0].shape == (5, 3)
    assert torch.equal(val[0], val_again[0]) and stream.advanced == 0
    train = take(dm.train_dataloader(), 3)
    assert stream.advanced == 3
    assert not any(torch.equal(val[0][:4], t) for t in train)  # evaluation uses its own generator


def test_bad_settings_are_refused():
    with pytest.raises(ValueError, match="batch_size"):
        StreamingDataModule(Counter(), batch_size=0)
    with pytest.raises(TypeError, match="no sample"):
        StreamingDataModule(object(), batch_size=2)
