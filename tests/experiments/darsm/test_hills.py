"""The periodic-hills RANS residual: its periodic coloured Jacobian, and its flat-wall limit against the laminar
Poiseuille profile and the channel solver (k-omega with the linear closure and with the ARSM)."""

import pytest
import torch

from experiments.darsm.channel import Channel, ConstantCoefficients, ImplicitARSM, LinearEddyViscosity
from experiments.darsm.hills import Hills
from experiments.darsm.hills_mesh import HillsMesh
from experiments.darsm.solver import newton_solve
from experiments.darsm.stencil import colour_count

pytestmark = pytest.mark.usefixtures("float64_default")
TOL = 1e-10


class Laminar:
    """No turbulent stress (nu_t = 0): the hills solver reduces to the Navier-Stokes equations."""

    def eddy_viscosity(self, f):
        return torch.zeros_like(f["k"])


def _solve(hills, closure, max_iters=100):
    residual = lambda q: hills.residual(q, closure)
    q, info = newton_solve(residual, hills.initial_state(), tol=TOL, max_iters=max_iters, dt0=1.0, growth=2.0,
                           n_vars=hills.n_vars, jacobian_fn=hills.jacobian)
    return q, info


def test_periodic_colouring_and_jacobian_equal_dense_forward_mode():
    assert colour_count(12, 4, periodic=True) == 12 and colour_count(18, 4, periodic=True) == 9
    hills = Hills(HillsMesh(1.0, nx=10, ny=7), re=700.0, upwind=0.5)
    q = hills.initial_state()
    q = q * (1 + 0.05 * torch.randn(q.shape, generator=torch.Generator().manual_seed(0)))
    closure = ImplicitARSM(ConstantCoefficients({"A1": 1.2, "A2": 0.3, "A3": 1.8, "A4": 2.25}))
    residual = lambda q: hills.residual(q, closure)
    dense = torch.func.jacfwd(residual)(q)
    sparse = torch.as_tensor(hills.jacobian(residual, q).toarray())
    assert torch.allclose(sparse, dense, rtol=0, atol=1e-12 * dense.abs().max())


@pytest.mark.parametrize("ny", [24, 48])
def test_flat_wall_laminar_limit_is_poiseuille_with_second_order_error(ny):
    mesh = HillsMesh(1.0, nx=9, ny=ny, hill_height=0.0, top=2.0, stretch=1.5)
    hills = Hills(mesh, re=100.0)
    q, info = _solve(hills, Laminar())
    u, v = hills.velocity(hills.split(q)[0])
    y = mesh.y[0, 1:-1]
    error = float((u - 1.5 * (1 - (y - 1) ** 2)).abs().max())
    assert info.residual < TOL and float(v.abs().max()) < 1e-12
    assert error < {24: 0.015, 48: 0.004}[ny]          # 0.0124 and 0.0031 measured: second order


def _channel_limit_error(closure, n):
    """Relative L2 of the flat-wall hills' u against the channel solver's U / U_b at Re_tau 180 on the same nodes
    (the hills' two-sided tanh map with the channel's stretch reproduces the channel's grid on each half)."""
    channel = Channel(180.0, n=n, stretch=3.5)
    qc, _ = newton_solve(lambda q: channel.residual(q, closure), channel.initial_state(), tol=1e-11, max_iters=200,
                         dt0=1.0, growth=3.0)
    ub = float(channel.bulk_velocity(qc))
    mesh = HillsMesh(1.0, nx=9, ny=2 * n, hill_height=0.0, top=2.0, stretch=3.5)
    assert torch.allclose(mesh.y[0, :n + 1], channel.y)
    hills = Hills(mesh, re=180.0 * ub)                  # nu / U_b in the hills' units: Re_b = Re_tau U_b+
    q, info = _solve(hills, closure)
    u, v = hills.velocity(hills.split(q)[0])
    U = channel.split(qc)[0] / ub
    assert info.residual < TOL and float(v.abs().max()) < 1e-10 and float((u - u[:1]).abs().max()) < 1e-9
    return float(((u[0, :n] - U) ** 2).sum().sqrt() / (U ** 2).sum().sqrt())


def test_flat_wall_k_omega_limit_converges_to_the_channel_solver():
    coarse, fine = (_channel_limit_error(LinearEddyViscosity(), n) for n in (16, 32))
    assert fine < 0.01 and fine < coarse / 3             # 0.0056 at n = 32; the two discretisations converge


def test_flat_wall_arsm_limit_matches_the_channel_solver():
    assert _channel_limit_error(ImplicitARSM(ConstantCoefficients()), 32) < 0.01     # 0.0060 measured
