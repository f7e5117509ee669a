"""The discrete adjoint of the converged channel solve equals central finite differences on every parameter."""

import pytest
import torch

from experiments.darsm.adjoint import attach_fixed_point, central_difference, unrolled_solve
from experiments.darsm.channel import Channel, ImplicitARSM
from experiments.darsm.model import NeuralARSM
from experiments.darsm.solver import newton_solve

pytestmark = pytest.mark.usefixtures("float64_default")


def _setup(seed=0):
    torch.manual_seed(seed)
    net = NeuralARSM(hidden=2, depth=1, zero_init=False).double()
    with torch.no_grad():
        for p in net.parameters():
            p.mul_(0.5)
    channel = Channel(180.0, n=24, stretch=3.0)
    target = channel.initial_state()[: channel.n] * 0.9
    closure = ImplicitARSM(net)
    residual = lambda q: channel.residual(q, closure)
    return net, channel, residual, target


def _loss(channel, U, target):
    return ((channel.weight * (U - target) ** 2).sum() / (channel.weight * target ** 2).sum())


def test_adjoint_gradient_matches_central_differences_along_random_directions():
    """adjoint · v = (L(θ + hv) − L(θ − hv)) / 2h for random unit directions v over all 20 parameters (any wrong
    component shows in almost every direction; three directions cost 6 solves instead of 40)."""
    net, channel, residual, target = _setup()
    q_star, info = newton_solve(residual, channel.initial_state(), tol=1e-13)
    q = attach_fixed_point(residual, q_star)
    _loss(channel, channel.split(q)[0], target).backward()
    params = list(net.parameters())
    adjoint = torch.cat([p.grad.reshape(-1) for p in params])
    assert adjoint.numel() == 20
    gen, h = torch.Generator().manual_seed(1), 1e-6
    evaluate = lambda: _loss(channel, channel.split(newton_solve(residual, q_star, tol=1e-13)[0])[0], target)
    for _ in range(3):
        v = torch.randn(adjoint.numel(), generator=gen, dtype=torch.float64)
        v /= v.norm()
        fd = central_difference(params, v, h, evaluate)
        assert abs(float(adjoint @ v) - fd) < 1e-4 * max(abs(fd), 1e-3 * float(adjoint.norm())), (float(adjoint @ v), fd)


def test_unrolled_gradient_is_a_truncation_of_the_adjoint():
    """Through many converged PTC iterates the unrolled gradient tends to the adjoint one; through few it differs."""
    net, channel, residual, target = _setup()
    q_star, _ = newton_solve(residual, channel.initial_state(), tol=1e-13)
    grads = {}
    for name, make in {"adjoint": lambda: attach_fixed_point(residual, q_star),
                       "long": lambda: unrolled_solve(residual, q_star, 30, 1.0, 3.0),
                       "short": lambda: unrolled_solve(residual, q_star, 2, 0.1, 1.0)}.items():
        net.zero_grad()
        _loss(channel, channel.split(make())[0], target).backward()
        grads[name] = torch.cat([p.grad.reshape(-1) for p in net.parameters()])
    err = lambda g: float((g - grads["adjoint"]).norm() / grads["adjoint"].norm())
    assert err(grads["long"]) < 1e-6
    assert err(grads["short"]) > 0.5
