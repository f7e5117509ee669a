"""Per-batch environments: fixed splits, reproducible generated batches, complete eval sets for short lengths."""

import pytest
import torch

from experiments.delightful.data import DigitsBanditDataModule, GeneratedBatches, ReversalDataModule
from reprolab.cli.errors import ConfigError


def test_digits_splits_are_disjoint_and_fixed():
    data = DigitsBanditDataModule(batch_size=8, num_batches=3)
    data.setup("fit")
    assert (len(data.y_train), len(data.val_set), len(data.test_set)) == (1257, 180, 360)
    assert data.x_train.shape[1] == 64 and 0.0 <= data.x_train.min() and data.x_train.max() <= 1.0
    test_x = data.test_set.tensors[0]
    assert not (torch.cdist(test_x[:50], data.x_train) == 0).any(1).all()  # test images are not train rows


def test_generated_batches_depend_on_seed_and_index_only():
    data = DigitsBanditDataModule(batch_size=8, num_batches=3)
    data.setup("fit")
    a, b = GeneratedBatches(data.contexts, 3, seed=0), GeneratedBatches(data.contexts, 3, seed=1)
    assert torch.equal(a[2][0], a[2][0]) and not torch.equal(a[2][0], a[1][0])
    assert not torch.equal(a[2][0], b[2][0]) and len(a) == 3


def test_reversal_batches_have_one_length_in_range():
    data = ReversalDataModule(min_length=2, max_length=4, batch_size=5, num_batches=40)
    lengths = {batch.shape[1] for batch in data.train_dataloader()}
    assert lengths == {2, 3, 4}


def test_reversal_eval_holds_every_prompt_of_short_lengths():
    data = ReversalDataModule(min_length=1, max_length=8, eval_size=128)
    batches = list(data.test_dataloader())
    assert [len(b) for b in batches] == [2, 4, 8, 16, 32, 64, 128, 128]
    assert len({tuple(p) for p in batches[6].tolist()}) == 128  # all 2^7 of length 7


def test_bad_values_are_one_clear_line():
    with pytest.raises(ConfigError, match="min_length <= data.max_length"):
        ReversalDataModule(min_length=5, max_length=3)
    with pytest.raises(ConfigError, match="data.source='cifar'"):
        DigitsBanditDataModule(source="cifar").setup("fit")
