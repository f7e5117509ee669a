"""Predictive NLL is the Monte-Carlo mixture (by hand), masking removes nodes exactly, Forrester values."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from experiments.dag_gp.functions import forrester_high, forrester_low
from experiments.dag_gp.model import DagGP


def collider_model(**kw) -> DagGP:
    torch.manual_seed(0)
    return DagGP({"a": ["x"], "b": ["x"], "y": ["a", "b"]}, inputs=["x"], observed=["a", "b", "y"], **kw)


def test_mixture_nll_matches_hand_computation(monkeypatch):
    model = collider_model(noise=1.0)
    with torch.no_grad():
        model.raw_noise.fill_(math.log(math.expm1(1.0 - 1e-6)))   # σ² = 1
    f = torch.zeros(2, 1, 3)
    f[1, 0, 2] = 2.0                                              # two draws of y: 0 and 2
    monkeypatch.setattr(model, "forward", lambda x, n: f)
    y, mask = torch.tensor([[9.0, 9.0, 1.0]]), torch.tensor([[0.0, 0.0, 1.0]])
    got = model.log_predictive(torch.zeros(1, 1), y, mask, 2)
    normal = lambda r: math.exp(-0.5 * r * r) / math.sqrt(2 * math.pi)  # noqa: E731
    hand = math.log(0.5 * (normal(1.0) + normal(1.0)))               # both draws are 1 away from y = 1
    assert got.item() == pytest.approx(hand, abs=1e-5)
    f[1, 0, 2] = 3.0                                              # draws 0 and 3: a mixture, not a Gaussian
    got = model.log_predictive(torch.zeros(1, 1), y, mask, 2)
    assert got.item() == pytest.approx(math.log(0.5 * (normal(1.0) + normal(2.0))), abs=1e-5)
    moment_matched = -0.5 * math.log(2 * math.pi * (1 + 2.25)) - 0.5 * (1 - 1.5) ** 2 / 3.25
    assert abs(got.item() - moment_matched) > 0.05


def test_masked_nodes_leave_the_likelihood_exactly():
    model = collider_model()
    f = torch.randn(4, 5, 3)
    y, mask = torch.randn(5, 3), torch.ones(5, 3)
    mask[:, :2] = 0
    masked = model.log_lik(f, y, mask)
    y_far = y.clone()
    y_far[:, :2] = 1e6                                            # unobserved values are never read
    assert torch.equal(masked, model.log_lik(f, y_far, mask))
    only_y = DagGP({"a": ["x"], "b": ["x"], "y": ["a", "b"]}, inputs=["x"], observed=["y"])
    with torch.no_grad():
        only_y.raw_noise.copy_(model.raw_noise[2:])
    assert torch.allclose(masked, only_y.log_lik(f, y[:, 2:], torch.ones(5, 1)))


def test_forrester_functions():
    x = np.array([0.0, 1.0, 0.75724876])
    high = forrester_high(x)
    assert high[0] == pytest.approx(4 * math.sin(-4)) and high[1] == pytest.approx(16 * math.sin(8))
    assert high[2] == pytest.approx(-6.02074, abs=1e-4)          # the known global minimum
    assert forrester_low(x)[0] == pytest.approx(0.5 * 4 * math.sin(-4) - 10)


def test_forrester_designs_are_nested_and_spread_covers_the_domain():
    from experiments.dag_gp.data import ForresterDataModule
    for design in ("random", "spread"):
        data = ForresterDataModule(seed=3, high_design=design)
        data.setup()
        x, y, mask = data.splits["train"]
        assert mask[:, 0].all() and int(mask[:, 1].sum()) == 6          # every high row is also a low row
        raw_x = x[:, 0].numpy() * data.x_std[0] + data.x_mean[0]
        high_x = np.sort(raw_x[mask[:, 1].numpy() > 0])
        if design == "spread":
            assert high_x[0] < 0.1 and high_x[-1] > 0.9 and np.diff(high_x).max() < 0.35
        truth = forrester_high(raw_x[mask[:, 1].numpy() > 0])
        observed = y[mask[:, 1] > 0, 1].numpy() * data.y_std[1] + data.y_mean[1]
        assert np.abs(np.sort(observed) - np.sort(truth)).max() < 0.1   # noise 0.01 around the true values
