"""Claim 1's stream: its input covariance, its seeding, the excess risk, the drift; and its trainer run."""

from __future__ import annotations

import pytest
import torch

from experiments.deltamomentum.regression import AnisotropicRegression, LinearRegressor
from reprolab.data.streaming import StreamingDataModule


def test_input_covariance_is_the_rotated_spectrum():
    stream = AnisotropicRegression(dim=4, decades=2.0, noise=0.0)
    assert stream.eigenvalues.tolist() == pytest.approx([1.0, 10 ** (-2 / 3), 10 ** (-4 / 3), 0.01])
    q = stream.rotation
    assert q.T @ q == pytest.approx(torch.eye(4), abs=1e-6)
    x, y = stream.sample(torch.Generator().manual_seed(0), 200_000)
    empirical = x.T @ x / len(x)
    assert empirical == pytest.approx(stream.covariance, abs=5e-3)
    assert y == pytest.approx(x @ stream.w_star, abs=1e-5)  # noise 0: y = w*ᵀx exactly


def test_seeding_fixes_the_rotation_and_draws_w_star_per_seed():
    a, b, c = AnisotropicRegression(seed=0), AnisotropicRegression(seed=0), AnisotropicRegression(seed=1)
    assert torch.equal(a.rotation, c.rotation)  # one problem, several seeds
    assert torch.equal(a.w_star, b.w_star) and not torch.equal(a.w_star, c.w_star)
    # w* does not come from the batches' generator: the first batch of seed 0 is not w*
    first = StreamingDataModule(a, batch_size=1, seed=0).train_dataloader()
    x, _ = next(iter(first))
    assert not torch.allclose(x[0], a.w_star)


def test_excess_risk_by_hand_and_relative_to_the_start():
    stream = AnisotropicRegression(dim=2, decades=1.0, rotate=False)
    stream.w_star = torch.tensor([1.0, 2.0])
    # Σ = diag(1, 0.1): (w − w*)ᵀΣ(w − w*) at w = 0 is 1 + 0.4
    assert stream.excess_risk(torch.zeros(1, 2)) == pytest.approx(1.4)
    assert stream.excess_risk(torch.tensor([[1.0, 0.0]])) == pytest.approx(0.4)
    model = LinearRegressor(32)
    full = AnisotropicRegression()
    assert full.excess_risk(model.linear.weight) == pytest.approx(full.initial_risk)  # w starts at 0


def test_drift_moves_w_star_only_when_asked():
    still, moving = AnisotropicRegression(drift=0.0), AnisotropicRegression(drift=0.1)
    w0 = moving.w_star.clone()
    g = torch.Generator().manual_seed(0)
    still.advance(g), moving.advance(g)
    assert torch.equal(still.w_star, AnisotropicRegression().w_star)
    assert 0 < (moving.w_star - w0).abs().max() < 1.0
    with pytest.raises(ValueError, match="decades, noise, drift"):
        AnisotropicRegression(drift=-1.0)
