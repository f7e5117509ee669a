"""update_share = cos(Δθ, −d_t) of the applied update, by hand: SGD 1, heavy-ball 1/√(1+β²), Adam's first step."""

import math

import pytest
import torch
from torch import nn

from reprolab.mtl.diagnostics import UpdateShare


def _step(opt, p, grad):
    p.grad = torch.tensor(grad)
    probe = UpdateShare()
    probe.before([p])
    opt.step()
    return probe.after()


def test_plain_sgd_follows_the_current_direction_exactly():
    p = nn.Parameter(torch.zeros(3))
    opt = torch.optim.SGD([p], lr=0.1)
    assert _step(opt, p, [1.0, -2.0, 0.5]) == pytest.approx(1.0)
    assert _step(opt, p, [-3.0, 0.0, 1.0]) == pytest.approx(1.0)


def test_heavy_ball_with_an_orthogonal_momentum_by_hand():
    beta = 0.9
    p = nn.Parameter(torch.zeros(2))
    opt = torch.optim.SGD([p], lr=0.1, momentum=beta)
    _step(opt, p, [1.0, 0.0])  # m_1 = e1
    # Δθ_2 = −η(β e1 + e2), d_2 = e2: cos = 1 / √(1 + β²)
    assert _step(opt, p, [0.0, 1.0]) == pytest.approx(1 / math.sqrt(1 + beta**2), rel=1e-6)


def test_adam_first_step_is_the_sign_of_the_gradient():
    p = nn.Parameter(torch.zeros(2))
    opt = torch.optim.Adam([p], lr=0.01, eps=0.0)
    # m̂/√v̂ = g/|g| = (1, 1) for g = (3, 4): cos = 7 / (√2 · 5)
    assert _step(opt, p, [3.0, 4.0]) == pytest.approx(7 / (math.sqrt(2) * 5), rel=1e-6)


def test_no_update_gives_nan():
    p = nn.Parameter(torch.zeros(2))
    assert math.isnan(_step(torch.optim.SGD([p], lr=0.0), p, [1.0, 1.0]))
