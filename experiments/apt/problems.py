"""The three CPU multi-task problems of the APT claim check: fixed train / val / test tensors per problem.

1. `synthetic`: two regression tasks through a shared low-capacity trunk. Conflict = how far apart the
   tasks' input subspaces are (they compete for an 8-unit bottleneck), curvature = the condition number of
   the input covariance, plus a 10× loss-scale imbalance (a generated stand-in with the MTL structure).
2. `digits`: two scikit-learn `load_digits` images side by side (8×16), one 10-way task per digit. The
   images are split into disjoint pools first, so no test image is seen in training.
3. `enb`: UCI ENB2012 (heating / cooling load) from ../shared/data/energy-efficiency-enb2012, 60/20/20.
`data_problems.ProblemDataModule` serves them to the trainer (`conf/data/mtl_{synthetic,digits,enb}.yaml`).
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch
from torch import Tensor

from reprolab.data.fetch import missing
from reprolab.data.tables import read_numeric_csv

ENB_FILE = "energy-efficiency-enb2012/energy_efficiency_clean.csv"


@dataclass
class Problem:
    """Tensors for train / val / test: inputs (N, D) and targets (N, T) (class indices or standardised values)."""

    x: dict[str, Tensor]
    y: dict[str, Tensor]
    target_scale: Tensor | None = None  # regression: std per target, so MAE is reported in original units


def _split(n: int, seed: int, fractions=(0.6, 0.2)) -> dict[str, np.ndarray]:
    perm = np.random.default_rng(seed).permutation(n)
    a, b = int(fractions[0] * n), int((fractions[0] + fractions[1]) * n)
    return {"train": perm[:a], "val": perm[a:b], "test": perm[b:]}


def synthetic(conflict: float = 0.8, curvature: float = 100.0, imbalance: float = 10.0, n: int = 3000,
              dim: int = 16, seed: int = 0) -> Problem:
    """Task t reads a 4-D input subspace; `conflict`∈[0,1] rotates task 1's subspace away from task 0's (0:
    same subspace, 1: orthogonal, so the 8-unit bottleneck must be shared); inputs have covariance
    eigenvalues spread over `curvature` (condition number); task 1's targets are `imbalance`× larger."""
    g = torch.Generator().manual_seed(seed)
    q, _ = torch.linalg.qr(torch.randn(dim, dim, generator=g))
    base, other = q[:, :4], q[:, 4:8]
    theta = conflict * math.pi / 2
    sub = [base, math.cos(theta) * base + math.sin(theta) * other]
    scales = curvature ** (-torch.linspace(0, 1, dim) / 2)  # std per input direction
    x = torch.randn(n, dim, generator=g) * scales
    x = x @ q.T  # rotate: task 0 reads the high-variance directions q[:, :4]
    heads = [torch.randn(4, generator=g) for _ in range(2)]
    y = torch.stack([torch.tanh(x @ sub[t]) @ heads[t] for t in range(2)], 1)
    y = y + 0.1 * torch.randn(y.shape, generator=g)
    y[:, 1] *= imbalance
    idx = _split(n, seed)
    mean, std = y[idx["train"]].mean(0), y[idx["train"]].std(0)
    y_std = (y - mean) / std
    y_std[:, 1] *= imbalance  # keep the imbalance in the training losses
    return Problem({k: x[v] for k, v in idx.items()}, {k: y_std[v] for k, v in idx.items()},
                   target_scale=std / torch.tensor([1.0, imbalance]))


@functools.cache
def _digit_images() -> tuple[torch.Tensor, torch.Tensor]:
    """scikit-learn's 1,797 digits in [0, 1] and their labels, read once a process (~20 ms, paid by every sweep job);
    callers only index them, which copies."""
    from sklearn.datasets import load_digits

    data = load_digits()
    return torch.tensor(data.images, dtype=torch.float32) / 16.0, torch.tensor(data.target)


def digits(n_train: int = 3000, n_eval: int = 1000, seed: int = 0) -> Problem:
    """Pairs of `load_digits` images side by side; task t = class of the left (t=0) / right (t=1) digit."""
    images, labels = _digit_images()
    pools = _split(len(labels), seed)
    rng = np.random.default_rng(seed + 1)
    x, y = {}, {}
    for split, count in (("train", n_train), ("val", n_eval), ("test", n_eval)):
        pool = pools[split]
        left, right = rng.choice(pool, count), rng.choice(pool, count)
        x[split] = torch.cat([images[left], images[right]], dim=2).reshape(count, -1)
        y[split] = torch.stack([labels[left], labels[right]], 1)
    return Problem(x, y)


def enb(data_dir: str | Path, seed: int = 0) -> Problem:
    """UCI ENB2012: 8 standardised inputs, heating (t0) and cooling (t1) load; MAE in kWh/m²."""
    path = Path(data_dir) / ENB_FILE
    if not path.is_file():
        raise missing("energy-efficiency-enb2012", data_dir, f"ENB2012 file '{ENB_FILE}'")
    columns = [f"X{i}" for i in range(1, 9)] + ["Y1", "Y2"]
    values = torch.tensor(read_numeric_csv(path, columns, hint="restore it with make data-energy-efficiency-enb2012"),
                          dtype=torch.float32)
    idx = _split(len(values), seed)
    x, y = values[:, :8], values[:, 8:]
    tr = idx["train"]
    x = (x - x[tr].mean(0)) / x[tr].std(0)
    mean, std = y[tr].mean(0), y[tr].std(0)
    y = (y - mean) / std
    return Problem({k: x[v] for k, v in idx.items()}, {k: y[v] for k, v in idx.items()}, target_scale=std)
