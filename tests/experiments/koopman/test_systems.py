"""System maps against hand steps, RK4's fourth order, seeded orbits and the datamodule's windows."""

from __future__ import annotations

import numpy as np
import pytest

from experiments.koopman.data import KoopmanDataModule
from experiments.koopman.systems import cat_map, ikeda_map, lorenz_rhs, rk4_step, standard_map, trajectories
from reprolab.cli.errors import ConfigError


def test_lorenz_rhs_by_hand():
    # (1, 2, 3): σ(2-1)=10, 1·(28-3)-2=23, 1·2-(8/3)·3=-6
    np.testing.assert_allclose(lorenz_rhs(np.array([1.0, 2.0, 3.0])), [10.0, 23.0, -6.0])


def test_rk4_is_fourth_order():
    f = lambda s: -s  # noqa: E731  s' = -s, exact e^{-t}
    errors = []
    for dt in (0.2, 0.1):
        s = np.array([1.0])
        for _ in range(int(round(1.0 / dt))):
            s = rk4_step(f, s, dt)
        errors.append(abs(s[0] - np.exp(-1.0)))
    assert 14 < errors[0] / errors[1] < 18  # halving dt divides the error by ~2^4


def test_maps_by_hand():
    np.testing.assert_allclose(cat_map(np.array([0.3, 0.6])), [0.2, 0.9])            # (1.2, 0.9) mod 1
    theta, p, K = 1.0, 0.5, 0.5
    p1 = p + K * np.sin(theta)
    np.testing.assert_allclose(standard_map(np.array([theta, p]), K), [theta + p1, p1])
    np.testing.assert_allclose(standard_map(np.array([6.0, 6.0]), 0.0), [12.0 - 2 * np.pi, 6.0])  # wraps
    t = 0.4 - 6.0 / 1.0                                                                # at the origin
    np.testing.assert_allclose(ikeda_map(np.array([0.0, 0.0])), [1.0, 0.0])
    np.testing.assert_allclose(ikeda_map(np.array([1.0, 0.0])), [1 + 0.9 * np.cos(t + 3.0), 0.9 * np.sin(t + 3.0)])


def test_orbits_are_seeded_and_shaped():
    a = trajectories("lorenz", 3, 20, 5, seed=1)
    assert a.shape == (3, 21, 3)
    np.testing.assert_array_equal(a, trajectories("lorenz", 3, 20, 5, seed=1))
    assert not np.allclose(a, trajectories("lorenz", 3, 20, 5, seed=2))
    with pytest.raises(ValueError, match="not one of"):
        trajectories("henon", 1, 1, 0, seed=0)
    with pytest.raises(ValueError, match="no parameters"):
        trajectories("cat", 1, 1, 0, seed=0, params={"K": 1.0})


def test_datamodule_windows_and_features():
    dm = KoopmanDataModule("lorenz", state_dim=3, n_trajectories=6, steps=30, burn_in=10, window=4,
                           val_trajectories=1, test_trajectories=1, batch_size=8)
    dm.setup("fit")
    windows = dm.windows("train")
    assert windows.shape == (4 * 27, 5, 3)               # 4 train orbits of 31 states, 27 starts each
    assert windows.abs().max() <= 1.0 + 1e-6                       # scaled by the train max, not centred
    np.testing.assert_allclose(windows[0].numpy(), dm.orbits["train"][0, :5] / dm.scale, rtol=1e-6)
    torus = KoopmanDataModule("cat", state_dim=4, n_trajectories=4, steps=5, burn_in=0, window=1,
                              val_trajectories=1, test_trajectories=1)
    torus.setup("fit")
    f = torus.features(np.array([[0.25, 0.0]]))
    np.testing.assert_allclose(f, [[0.0, 1.0, 1.0, 0.0]], atol=1e-12)   # cos, cos, sin, sin of 2π·(x, y)
    with pytest.raises(ConfigError, match="state_dim"):
        KoopmanDataModule("cat", state_dim=2, n_trajectories=4, steps=5, burn_in=0, window=1,
                          val_trajectories=1, test_trajectories=1).setup("fit")
    with pytest.raises(ConfigError, match="window"):
        KoopmanDataModule("cat", state_dim=4, steps=5, window=9)
