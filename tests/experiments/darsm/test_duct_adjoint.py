"""The discrete adjoint of the converged duct solve (sparse Jacobian, SuperLU transposed solve) equals central
finite differences of a loss on both U and the secondary velocity."""

import pytest
import torch

from experiments.darsm.adjoint import attach_fixed_point, central_difference
from experiments.darsm.channel import ImplicitARSM
from experiments.darsm.duct import Duct
from experiments.darsm.duct_metrics import relative_l2, velocities
from experiments.darsm.model import NeuralARSM
from experiments.darsm.solver import newton_solve
from tests.experiments.darsm.conftest import small_net

pytestmark = pytest.mark.usefixtures("float64_default")


def test_duct_adjoint_matches_central_differences_along_random_directions():
    net = small_net()
    duct = Duct(180.0, ny=9, nz=9)
    closure = ImplicitARSM(net)
    residual = lambda q: duct.residual(q, closure)
    solve = lambda q0: newton_solve(residual, q0, tol=1e-13, max_iters=150, dt0=1.0, growth=2.0, n_vars=5,
                                    jacobian_fn=duct.jacobian)[0]
    q_star = solve(duct.initial_state())
    base = velocities(duct, q_star)
    target = {"U": 0.95 * base["U"] + 0.05, "V": 1.5 * base["V"], "W": 1.2 * base["W"]}

    def loss(q):
        vel = velocities(duct, q)
        return relative_l2(duct, vel, target, ["U"]) ** 2 + relative_l2(duct, vel, target, ["V", "W"]) ** 2

    loss(attach_fixed_point(residual, q_star, jacobian_fn=duct.jacobian)).backward()
    params = list(net.parameters())
    adjoint = torch.cat([p.grad.reshape(-1) for p in params])
    assert adjoint.numel() == 20 and float(adjoint.norm()) > 0
    gen, h = torch.Generator().manual_seed(1), 1e-6
    for _ in range(2):
        v = torch.randn(adjoint.numel(), generator=gen, dtype=torch.float64)
        v /= v.norm()
        fd = central_difference(params, v, h, lambda: loss(solve(q_star)))
        assert abs(float(adjoint @ v) - fd) < 1e-4 * max(abs(fd), 1e-3 * float(adjoint.norm())), (float(adjoint @ v), fd)


def test_duct_unrolled_gradient_is_a_truncation_of_the_adjoint():
    """Through many PTC iterates from the fixed point the duct's unrolled gradient (sparse J, 5 variables) tends to
    the adjoint one; through two short pseudo-time steps it does not."""
    from experiments.darsm.adjoint import unrolled_solve

    torch.manual_seed(0)
    net = NeuralARSM(hidden=2, depth=1, zero_init=False).double()
    duct = Duct(180.0, ny=7, nz=7)
    residual = lambda q: duct.residual(q, ImplicitARSM(net))
    q_star = newton_solve(residual, duct.initial_state(), tol=1e-13, max_iters=150, dt0=1.0, growth=2.0, n_vars=5,
                          jacobian_fn=duct.jacobian)[0]
    target = 0.9 * velocities(duct, q_star)["U"]
    grads = {}
    for name, make in {"adjoint": lambda: attach_fixed_point(residual, q_star, jacobian_fn=duct.jacobian),
                       "long": lambda: unrolled_solve(residual, q_star, 12, 1.0, 10.0, n_vars=5, jacobian_fn=duct.jacobian),
                       "short": lambda: unrolled_solve(residual, q_star, 2, 0.01, 1.0, n_vars=5, jacobian_fn=duct.jacobian)}.items():
        net.zero_grad()
        relative_l2(duct, velocities(duct, make()), {"U": target}, ["U"]).backward()
        grads[name] = torch.cat([p.grad.reshape(-1) for p in net.parameters()])
    err = lambda g: float((g - grads["adjoint"]).norm() / grads["adjoint"].norm())
    assert err(grads["long"]) < 1e-6
    assert err(grads["short"]) > 0.5
