"""The hills' separated solve converges, conserves the flux, and its discrete adjoint equals central differences."""

import numpy as np
import pytest
import torch

from experiments.darsm.adjoint import attach_fixed_point, central_difference
from experiments.darsm.channel import ConstantCoefficients, ImplicitARSM
from experiments.darsm.hills import Hills
from experiments.darsm.hills_data import crest_bulk_velocity
from experiments.darsm.hills_mesh import HillsMesh
from experiments.darsm.hills_metrics import recirculation, wall_tangential
from experiments.darsm.solver import newton_solve
from tests.experiments.darsm.conftest import small_net

pytestmark = pytest.mark.usefixtures("float64_default")


def _solve(hills, closure, tol=1e-10):
    residual = lambda q: hills.residual(q, closure)
    q, info = newton_solve(residual, hills.initial_state(), tol=tol, max_iters=120, dt0=0.1, growth=2.0,
                           n_vars=hills.n_vars, jacobian_fn=hills.jacobian)
    return q, info, residual


def test_separated_flow_at_re_5600_converges_and_conserves_the_flux():
    hills = Hills(HillsMesh(1.0, nx=36, ny=32), re=5600.0)
    q, info, _ = _solve(hills, ImplicitARSM(ConstantCoefficients()))
    u, v = hills.velocity(hills.split(q)[0])
    m = hills.mesh
    u_e = torch.cat([torch.zeros_like(u[:, :1]), u, torch.zeros_like(u[:, :1])], 1)
    column_flux = (0.5 * (u_e[:, 1:] + u_e[:, :-1]) * (m.y[:, 1:] - m.y[:, :-1])).sum(1)
    assert info.residual < 1e-10
    assert float((column_flux / hills.flux - 1).abs().max()) < 0.01 and float(crest_bulk_velocity(hills, u)) == \
        pytest.approx(1.0, abs=0.01)
    x_sep, x_re = recirculation(m.x1.numpy(), wall_tangential(hills, u, v), m.length)
    assert 0.0 < x_sep < 1.0 < x_re < 7.0                    # a bubble behind the crest, reattaching before the next hill


def test_hills_adjoint_matches_central_differences():
    net = small_net()
    hills = Hills(HillsMesh(1.0, nx=18, ny=16), re=5600.0)
    closure = ImplicitARSM(net)
    q0 = hills.initial_state()
    target, _ = hills.velocity(hills.split(q0)[0])

    def loss(q):
        u, _ = hills.velocity(hills.split(q)[0])
        return ((u - 0.9 * target) ** 2).mean()

    q_star, info, residual = _solve(hills, closure, tol=1e-12)
    loss(attach_fixed_point(residual, q_star, jacobian_fn=hills.jacobian)).backward()
    params = list(net.parameters())
    adjoint = torch.cat([p.grad.reshape(-1) for p in params])
    gen = torch.Generator().manual_seed(1)
    assert float(adjoint.norm()) > 1e-6                      # the closure moves the flow: the check is not vacuous
    for _ in range(2):
        direction = torch.randn(adjoint.numel(), generator=gen)
        direction /= direction.norm()
        fd = central_difference(params, direction, 1e-5, lambda: loss(_solve(hills, closure, tol=1e-12)[0]))
        assert np.isclose(float(adjoint @ direction), fd, rtol=1e-4, atol=1e-12), (float(adjoint @ direction), fd)
