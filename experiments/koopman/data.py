"""Trajectories generated offline (no download), cut into multi-step windows for the deep Koopman losses.

Trajectories are split by orbit into train/val/test. The model sees `features(states)`: coordinates divided
by their largest |value| on the training orbits (scaled, never centred: centring would turn xz into
xz − z̄x − x̄z + x̄z̄ and mix the monomials the readout must name), or, on a torus, the periodic embedding
(cos 2πs/P, sin 2πs/P) of each coordinate of period P. A window of length `window + 1` feeds the k-step
prediction loss (`window` = 1 gives snapshot pairs).
"""

from __future__ import annotations

import lightning as L
import numpy as np
import torch
from torch.utils.data import DataLoader, TensorDataset

from experiments.koopman.systems import SYSTEMS, trajectories
from reprolab.cli.errors import ConfigError


class KoopmanDataModule(L.LightningDataModule):
    def __init__(self, system: str, state_dim: int, n_trajectories: int = 20, steps: int = 500, burn_in: int = 100,
                 window: int = 10, stride: int = 1, val_trajectories: int = 3, test_trajectories: int = 3,
                 batch_size: int = 128, seed: int = 0, params: dict | None = None, num_workers: int = 0):
        super().__init__()
        if system not in SYSTEMS:
            raise ConfigError(f"data.system '{system}' is not one of {sorted(SYSTEMS)}")
        if n_trajectories <= val_trajectories + test_trajectories:
            raise ConfigError(f"data.n_trajectories ({n_trajectories}) must exceed val + test trajectories "
                              f"({val_trajectories} + {test_trajectories})")
        if not 1 <= window <= steps:
            raise ConfigError(f"data.window must be in [1, steps={steps}]; got {window}")
        self.system, self.state_dim, self.window, self.stride = system, state_dim, window, stride
        self.period = SYSTEMS[system][3]
        self.batch_size, self.num_workers = batch_size, num_workers
        self.gen = dict(n_trajectories=n_trajectories, steps=steps, burn_in=burn_in, seed=seed, params=dict(params or {}))
        self.n_val, self.n_test = val_trajectories, test_trajectories
        self.orbits: dict[str, np.ndarray] = {}

    def prepare_data(self) -> None:
        """Nothing to download: orbits are generated in `setup`."""

    def setup(self, stage: str | None = None) -> None:
        if self.orbits:
            return
        orbits = trajectories(self.system, **self.gen)
        n_train = len(orbits) - self.n_val - self.n_test
        self.orbits = {"train": orbits[:n_train], "val": orbits[n_train:n_train + self.n_val],
                       "test": orbits[n_train + self.n_val:]}
        self.scale = np.abs(self.orbits["train"]).reshape(-1, orbits.shape[-1]).max(0)
        dim = self.features(orbits[:1, :1]).shape[-1]
        if dim != self.state_dim:
            raise ConfigError(f"data.state_dim is {self.state_dim} but the '{self.system}' features have {dim} dimensions")

    def features(self, states: np.ndarray) -> np.ndarray:
        """Model inputs: scaled coordinates, or the periodic embedding on a torus."""
        if self.period is None:
            return states / self.scale
        angle = 2 * np.pi * states / self.period
        return np.concatenate([np.cos(angle), np.sin(angle)], axis=-1)

    def states(self, split: str) -> np.ndarray:
        """All states of a split's orbits, (n, d), in the system's own coordinates."""
        return self.orbits[split].reshape(-1, self.orbits[split].shape[-1])

    def pairs(self, split: str) -> tuple[np.ndarray, np.ndarray]:
        """Snapshot pairs (s_t, s_{t+1}) of a split, each (n, d)."""
        orbits = self.orbits[split]
        d = orbits.shape[-1]
        return orbits[:, :-1].reshape(-1, d), orbits[:, 1:].reshape(-1, d)

    def windows(self, split: str) -> torch.Tensor:
        """(n_windows, window + 1, state_dim) float32 feature windows, start every `stride` steps."""
        feats = self.features(self.orbits[split])
        starts = range(0, feats.shape[1] - self.window, self.stride)
        return torch.from_numpy(np.concatenate([feats[:, s:s + self.window + 1] for s in starts])).float()

    def _loader(self, split: str, shuffle: bool) -> DataLoader:
        return DataLoader(TensorDataset(self.windows(split)), batch_size=self.batch_size, shuffle=shuffle,
                          num_workers=self.num_workers, drop_last=shuffle)

    def train_dataloader(self) -> DataLoader:
        return self._loader("train", True)

    def val_dataloader(self) -> DataLoader:
        return self._loader("val", False)

    def test_dataloader(self) -> DataLoader:
        return self._loader("test", False)
