"""Handwritten digits as flat tensors: scikit-learn's bundled 8×8 digits (offline) or MNIST (torchvision).

Shared by papers that need a small real image-classification set without a download (the delightful
bandit, the probes' source networks).
"""

from __future__ import annotations

from pathlib import Path

import torch

from reprolab.cli.errors import ConfigError, DatasetNotFoundError


def load_digits_arrays(source: str, data_dir: str, download: bool) -> tuple[torch.Tensor, ...]:
    """(x_train, y_train, x_test, y_test), images flattened to [0, 1]: sklearn's bundled 8×8 digits or MNIST."""
    if source == "digits":
        from sklearn.datasets import load_digits

        x, y = load_digits(return_X_y=True)
        x, y = torch.tensor(x / 16.0, dtype=torch.float32), torch.tensor(y)
        order = torch.randperm(len(y), generator=torch.Generator().manual_seed(0))
        test, train = order[:360], order[360:]  # a fixed held-out fifth
        return x[train], y[train], x[test], y[test]
    if source == "mnist":
        from torchvision.datasets import MNIST

        root = Path(data_dir)
        try:
            sets = [MNIST(root, train=t, download=download) for t in (True, False)]
        except RuntimeError:
            raise DatasetNotFoundError(
                f"data_dir '{root}' has no MNIST; run 'make data-mnist' or set data.download=true"
            ) from None
        return tuple(t for s in sets for t in (s.data.flatten(1).float() / 255.0, s.targets))
    raise ConfigError(f"data.source={source!r}; choose digits (sklearn, offline) or mnist (torchvision)")


DIGIT_SHAPES = {"digits": (1437, 360, 64), "mnist": (60_000, 10_000, 784)}  # train rows, test rows, pixels


def fake_digits_arrays(source: str, seed: int = 0) -> tuple[torch.Tensor, ...]:
    """Random pixels in [0, 1] and labels 0-9 in the arrays' real sizes (reprolab.data.fake)."""
    if source not in DIGIT_SHAPES:
        raise ConfigError(f"data.source={source!r}; choose digits (sklearn, offline) or mnist (torchvision)")
    n_train, n_test, pixels = DIGIT_SHAPES[source]
    g = torch.Generator().manual_seed(seed)
    return tuple(t for n in (n_train, n_test) for t in (torch.rand(n, pixels, generator=g), torch.randint(10, (n,), generator=g)))
