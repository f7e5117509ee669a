"""The level-set check of the readout: gradient alignment on made-up functions, jacrev against differences."""

from __future__ import annotations

import numpy as np
import torch

from experiments.koopman.data import KoopmanDataModule
from experiments.koopman.model import DeepKoopman
from experiments.koopman.readout import central_gradient, inner_gradients, level_set_alignment
from reprolab.models.kan import KAN


def test_alignment_is_one_for_a_function_of_the_target_and_less_otherwise():
    rng = np.random.default_rng(0)
    s = rng.uniform(-1, 1, size=(500, 2))
    r2 = lambda u: (u ** 2).sum(1)  # noqa: E731
    g_target = central_gradient(r2, s)
    np.testing.assert_allclose(g_target, 2 * s, atol=1e-6)
    same_level_sets = central_gradient(lambda u: np.exp(-r2(u)), s)      # F(x² + y²), F monotone
    other = central_gradient(lambda u: u[:, 0] + 0.3 * u[:, 1], s)
    grads = np.stack([other, same_level_sets], axis=1)                    # (n, q, d)
    assert abs(level_set_alignment(grads, g_target) - 1.0) < 1e-6
    assert level_set_alignment(grads[:, :1], g_target) < 0.8


def test_inner_gradients_match_finite_differences():
    torch.manual_seed(0)
    dm = KoopmanDataModule("ikeda", state_dim=2, n_trajectories=3, steps=20, burn_in=5, window=2,
                           val_trajectories=1, test_trajectories=1)
    dm.setup("fit")
    model = DeepKoopman(lambda widths: KAN(widths), state_dim=2, latent_dim=3, hidden=4).double()
    states = dm.states("train")[:10]
    jac = inner_gradients(model.float(), dm, states)
    with torch.no_grad():
        for q in range(4):
            fn = lambda u: model.encoder.inner(torch.from_numpy(u / dm.scale).float()).double().numpy()[:, q]  # noqa: E731,B023
            np.testing.assert_allclose(jac[:, q], central_gradient(fn, states, 1e-3), rtol=2e-2, atol=2e-3)
