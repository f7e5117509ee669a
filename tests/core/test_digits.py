"""The shared digits loader: scikit-learn's bundled 8x8 digits offline, MNIST through torchvision."""

from __future__ import annotations

import pytest
import torch

from reprolab.cli.errors import ConfigError, DatasetNotFoundError
from reprolab.data.digits import load_digits_arrays


def test_bundled_digits_are_a_fixed_split_of_all_1797_images_in_unit_range():
    x, y, x_test, y_test = load_digits_arrays("digits", "unused", download=False)
    assert x.shape == (1437, 64) and x_test.shape == (360, 64) and len(y) + len(y_test) == 1797
    assert float(x.min()) == 0.0 and float(x.max()) == 1.0 and set(y.tolist()) == set(range(10))
    again = load_digits_arrays("digits", "unused", download=False)
    assert torch.equal(again[2], x_test)  # the held-out fifth does not depend on the caller's seed


def test_missing_mnist_names_the_make_target(tmp_path):
    with pytest.raises(DatasetNotFoundError, match="make data-mnist"):
        load_digits_arrays("mnist", str(tmp_path), download=False)


def test_unknown_source_is_a_config_error():
    with pytest.raises(ConfigError, match="choose digits"):
        load_digits_arrays("emnist", "unused", download=False)
