"""Datamodules yielding (x, y, mask) rows: exogenous inputs, the observed nodes' values, and 1 where a node is
observed. Columns of y follow `nodes`; everything is standardised with training statistics.
"""

from __future__ import annotations

from pathlib import Path

import lightning as L
import numpy as np
import torch
from torch.utils.data import DataLoader, TensorDataset

from experiments.dag_gp.functions import collider, forrester_high, forrester_low
from reprolab.cli.errors import ConfigError, DatasetNotFoundError
from reprolab.data.fake import real_setup
from reprolab.data.tables import read_numeric_csv
from reprolab.data.tensor_loader import tensor_loader


def _fixed(kw: dict, inputs: list[str], nodes: list[str]) -> dict:
    """A generated problem's columns are fixed; the config names them (for the model's interpolation) or not."""
    for key, want in (("inputs", inputs), ("nodes", nodes)):
        if list(kw.get(key, want)) != want:
            raise ConfigError(f"data.{key} of this problem is {want}; got {list(kw[key])}")
    return {**kw, "inputs": inputs, "nodes": nodes}


class RowsDataModule(L.LightningDataModule):
    """Holds train/val/test (x, y, mask) arrays made by `make_splits`; full-batch evaluation."""

    def __init__(self, inputs: list[str], nodes: list[str], batch_size: int = 256, seed: int = 0):
        super().__init__()
        self.inputs, self.nodes, self.batch_size, self.seed = list(inputs), list(nodes), batch_size, seed
        self.splits: dict[str, tuple[torch.Tensor, ...]] = {}

    def make_splits(self, rng: np.random.Generator) -> dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]]:
        raise NotImplementedError

    def setup(self, stage: str | None = None) -> None:
        if self.splits:
            return
        raw = self.make_splits(np.random.default_rng(self.seed))
        x, y, m = raw["train"]
        self.x_mean, self.x_std = x.mean(0), x.std(0) + 1e-8
        obs = np.where(m > 0, y, np.nan)
        self.y_mean, self.y_std = np.nanmean(obs, 0), np.nanstd(obs, 0) + 1e-8
        for name, (x, y, m) in raw.items():
            ys = np.where(m > 0, (y - self.y_mean) / self.y_std, 0.0)
            self.splits[name] = tuple(torch.as_tensor(a, dtype=torch.float32)
                                      for a in ((x - self.x_mean) / self.x_std, ys, m))

    @property
    def n_train(self) -> int:
        return len(self.splits["train"][0])

    def _loader(self, name: str, batch_size: int, shuffle: bool) -> DataLoader:
        return tensor_loader(TensorDataset(*self.splits[name]), batch_size, shuffle=shuffle)

    def train_dataloader(self):
        return self._loader("train", self.batch_size, True)

    def val_dataloader(self):
        return self._loader("val", len(self.splits["val"][0]), False)

    def test_dataloader(self):
        return self._loader("test", len(self.splits["test"][0]), False)


class ColliderDataModule(RowsDataModule):
    """Latent collider a → y ← b over x ~ U[−3, 3]: y observed everywhere, a and b on `latent_fraction` of rows."""

    def __init__(self, n_train: int = 200, n_val: int = 100, n_test: int = 200, latent_fraction: float = 0.1,
                 noise: float = 0.05, **kw):
        super().__init__(**_fixed(kw, ["x"], ["a", "b", "y"]))
        if not 0 <= latent_fraction <= 1:
            raise ConfigError(f"data.latent_fraction must be in [0, 1]; got {latent_fraction}")
        self.sizes, self.latent_fraction, self.noise = dict(train=n_train, val=n_val, test=n_test), latent_fraction, noise

    def make_splits(self, rng):
        out = {}
        for name, n in self.sizes.items():
            x = rng.uniform(-3, 3, size=n)
            y = np.stack(collider(x), 1) + self.noise * rng.standard_normal((n, 3))
            m = np.ones((n, 3))
            m[:, :2] = (rng.uniform(size=(n, 1)) < self.latent_fraction)  # latents observed together, rarely
            out[name] = (x[:, None], y, m)
        return out


class ForresterDataModule(RowsDataModule):
    """Two fidelities on x ∈ [0, 1]: low observed at n_low points, high at n_high of them (nested design:
    `high_design` random = a random subset, spread = the low points nearest an even grid on [0, 1]);
    val/test rows carry the high fidelity only (what is predicted)."""

    def __init__(self, n_low: int = 30, n_high: int = 6, n_val: int = 50, n_test: int = 200, noise: float = 0.01,
                 high_design: str = "spread", **kw):
        super().__init__(**_fixed(kw, ["x"], ["low", "high"]))
        if not 2 <= n_high <= n_low:
            raise ConfigError(f"data.n_high must be in [2, n_low={n_low}]; got {n_high}")
        if high_design not in ("random", "spread"):
            raise ConfigError(f"data.high_design must be random or spread; got {high_design}")
        self.n_low, self.n_high, self.n_val, self.n_test, self.noise = n_low, n_high, n_val, n_test, noise
        self.high_design = high_design

    def make_splits(self, rng):
        x = np.sort(rng.uniform(0, 1, self.n_low))
        high_rows = rng.choice(self.n_low, self.n_high, replace=False)   # drawn in both designs: same x, noise
        if self.high_design == "spread":
            high_rows = np.unique(np.abs(x[:, None] - np.linspace(0, 1, self.n_high)[None]).argmin(0))
        m = np.zeros((self.n_low, 2))
        m[:, 0], m[high_rows, 1] = 1, 1
        out = {"train": (x, m)}
        out["val"] = (rng.uniform(0, 1, self.n_val), np.tile([0.0, 1.0], (self.n_val, 1)))
        out["test"] = (np.linspace(0, 1, self.n_test), np.tile([0.0, 1.0], (self.n_test, 1)))
        return {k: (xs[:, None], np.stack([forrester_low(xs), forrester_high(xs)], 1)
                    + self.noise * rng.standard_normal((len(xs), 2)), mask) for k, (xs, mask) in out.items()}


SACHS_ROWS = 7466


class SachsDataModule(RowsDataModule):
    """Sachs et al. (2005) flow cytometry, log-transformed; `inputs` are the DAG's root proteins (exogenous),
    `nodes` the rest. Rows of all pooled conditions are split at random (split seed fixed across runs)."""

    def __init__(self, data_dir: str, inputs: list[str], nodes: list[str], n_train: int = 1000, n_val: int = 500,
                 n_test: int = 1000, split_seed: int = 0, **kw):
        super().__init__(inputs=inputs, nodes=nodes, **kw)
        self.path = Path(data_dir) / "cyto_full_data.csv"
        self.sizes, self.split_seed = (n_train, n_val, n_test), split_seed

    def make_splits(self, rng):
        if not self.path.is_file():
            raise DatasetNotFoundError(f"{self.path} not found: run `make data-sachs` (fetches and checks it) or set "
                                       "REPROLAB_DATA or paths.data_dir")
        header = self.path.read_text().splitlines()[0].split(",")
        missing = [c for c in self.inputs + self.nodes if c not in header]
        if missing:
            raise ConfigError(f"columns {missing} are not in {self.path} (has {header})")
        return self.split_rows(np.log(read_numeric_csv(self.path, hint="restore it with make data-sachs")), header)

    def fake_setup(self, stage: str | None = None) -> None:
        """Sachs' 7,466 cells as random log-normal rows of its columns (reprolab.data.fake)."""
        columns = self.inputs + self.nodes
        self.make_splits = lambda rng: self.split_rows(rng.normal(3.0, 1.0, (SACHS_ROWS, len(columns))), columns)
        real_setup(self, stage)

    def split_rows(self, table: np.ndarray, header: list[str]):
        if sum(self.sizes) > len(table):
            raise ConfigError(f"data.n_train, data.n_val, data.n_test {self.sizes} exceed the {len(table)} rows of "
                              f"{self.path}; use smaller sizes")
        rows = np.random.default_rng(self.split_seed).permutation(len(table))
        x, y = table[:, [header.index(c) for c in self.inputs]], table[:, [header.index(c) for c in self.nodes]]
        cuts = np.cumsum((0,) + self.sizes)
        return {name: (x[rows[a:b]], y[rows[a:b]], np.ones((b - a, len(self.nodes))))
                for name, a, b in zip(("train", "val", "test"), cuts[:-1], cuts[1:], strict=True)}


class GridDataModule(RowsDataModule):
    """A 1-D grid on [lo, hi] for prior draws (no observations, nothing to train)."""

    def __init__(self, n_points: int = 50, lo: float = -1.0, hi: float = 1.0, **kw):
        super().__init__(**_fixed(kw, ["x"], []))
        self.grid = np.linspace(lo, hi, n_points)[:, None]

    def setup(self, stage: str | None = None) -> None:
        empty = np.zeros((len(self.grid), 0))
        for name in ("train", "val", "test"):  # the raw grid: the analysis measures slopes in x's own units
            self.splits[name] = tuple(torch.as_tensor(a, dtype=torch.float64) for a in (self.grid, empty, empty))
