"""The duct quadrant: its sparse Jacobian, the rotated ARSM against the general 9x9 solve, and the secondary flow
(none with a linear eddy viscosity; with the ARSM a pair of corner vortices carrying flow toward the corner)."""

import numpy as np
import pytest
import torch

from experiments.darsm.arsm import WJ_CONSTANTS, solve_anisotropy
from experiments.darsm.channel import ConstantCoefficients, ImplicitARSM, LinearEddyViscosity
from experiments.darsm.duct import Duct
from experiments.darsm.duct_metrics import corner_flow, streamfunction, velocities, vortex_centres
from experiments.darsm.solver import newton_solve

pytestmark = pytest.mark.usefixtures("float64_default")
TOL = 1e-10


def _solve(duct, closure):
    residual = lambda q: duct.residual(q, closure)
    q, info = newton_solve(residual, duct.initial_state(), tol=TOL, max_iters=120, dt0=1.0, growth=2.0, n_vars=5,
                           jacobian_fn=duct.jacobian)
    return q, info, residual


def test_stencil_jacobian_equals_dense_forward_mode():
    duct = Duct(180.0, aspect=2.0, ny=7, nz=8)
    q = duct.initial_state()
    gen = torch.Generator().manual_seed(0)
    q[3 * 56:] = 1e-2 * torch.randn(2 * 56, generator=gen)        # a live secondary flow
    closure = ImplicitARSM(ConstantCoefficients({"A1": 1.2, "A2": 0.3, "A3": 1.8, "A4": 2.25}))
    residual = lambda q: duct.residual(q, closure)
    dense = torch.func.jacfwd(residual)(q)
    assert torch.allclose(torch.as_tensor(duct.jacobian(residual, q).toarray()), dense, rtol=0, atol=1e-12 * dense.abs().max())


@pytest.mark.parametrize("a2", [0.0, 0.4])
def test_rotated_arsm_equals_general_solve_for_an_oblique_shear(a2):
    Uy, Uz = torch.tensor([3.0, -0.5, 0.0]), torch.tensor([1.5, 2.0, -4.0])
    k, tau = torch.tensor([0.7, 1.1, 0.4]), torch.tensor([2.0, 0.5, 1.3])
    f = {"k": k, "tau": tau, "Uy": Uy, "Uz": Uz, "re_t": torch.full((3,), 50.0),
         "s": torch.sqrt((0.5 * tau) ** 2 * (Uy ** 2 + Uz ** 2))}
    values = dict(WJ_CONSTANTS, A2=a2)
    nu_t, vv_ww, vw = Duct(180.0).stresses(f, ImplicitARSM(ConstantCoefficients(values)))
    S, W = torch.zeros(3, 3, 3), torch.zeros(3, 3, 3)
    for axis, g in ((1, Uy), (2, Uz)):
        S[:, 0, axis] = S[:, axis, 0] = 0.5 * tau * g
        W[:, 0, axis], W[:, axis, 0] = 0.5 * tau * g, -0.5 * tau * g
    a, _ = solve_anisotropy(S, W, {name: torch.full((3,), float(v)) for name, v in values.items()})
    assert torch.allclose(k * (a[:, 1, 1] - a[:, 2, 2]), vv_ww, atol=1e-12)
    assert torch.allclose(k * a[:, 1, 2], vw, atol=1e-12)
    assert torch.allclose(k * a[:, 0, 1], -nu_t * Uy, atol=1e-12) and torch.allclose(k * a[:, 0, 2], -nu_t * Uz, atol=1e-12)
    assert float((vv_ww.abs() + vw.abs()).min()) > 1e-3        # the test is not vacuous


def test_linear_eddy_viscosity_has_no_secondary_flow():
    duct = Duct(360.0, ny=14, nz=14)
    q, info, _ = _solve(duct, LinearEddyViscosity())
    U, _, _, psi, vort = duct.split(q)
    assert info.residual < TOL and float(U.min()) > 0
    assert float(psi.abs().max()) < 1e-14 and float(vort.abs().max()) < 1e-12


def _bisector_flow(duct, q):
    f = duct.features(q)
    return (f["V"] + f["W"]).diagonal()     # nodes (i, i): on the corner bisector when AR = 1


def test_arsm_square_duct_has_one_corner_vortex_pair_toward_the_corner():
    duct = Duct(360.0, ny=14, nz=14)
    q, info, _ = _solve(duct, ImplicitARSM(ConstantCoefficients()))
    _, _, _, psi, _ = duct.split(q)
    f = duct.features(q)
    peak = float(torch.sqrt(f["V"] ** 2 + f["W"] ** 2).max() / duct.bulk_velocity(q))
    assert info.residual < TOL and 0.005 < peak < 0.05          # Prandtl's second kind: a few % of U_b
    assert torch.allclose(psi, -psi.T, atol=1e-12 * float(psi.abs().max()))   # mirror symmetric about y = z
    off_wall = (1.0 - duct.y[1:-1] > 0.02)                       # the bisector from the sublayer to the centre
    assert float(_bisector_flow(duct, q)[1:][off_wall].min()) > 0   # toward the corner (1, 1) along the bisector
    side = psi[tuple(torch.triu_indices(14, 14, offset=1))]       # z > y: one vortex (a corner eddy < 5 %)
    assert float(side.clamp_min(0).sum()) > 0.95 * float(side.abs().sum())


def test_aspect_ratio_three_converges_with_flow_toward_its_corner():
    wide = Duct(360.0, aspect=3.0, ny=12, nz=16)
    q, info, _ = _solve(wide, ImplicitARSM(ConstantCoefficients()))
    vel = velocities(wide, q)
    assert info.residual < TOL and float(wide.z[-1]) == 3.0 and float(wide.y[-1]) == 1.0
    assert corner_flow(wide, vel) > 0.002                          # toward (1, 3) along its bisector
    (y_max, z_max), (y_min, z_min) = vortex_centres(wide, vel)
    assert min(1 - y_max, 3 - z_max, 1 - y_min, 3 - z_min) >= 0 and (y_max, z_max) != (y_min, z_min)


def test_corner_flow_sign_and_streamfunction_by_hand():
    duct = Duct(360.0, ny=8, nz=8)
    yy, zz = torch.meshgrid(duct.y[:-1], duct.z[:-1], indexing="ij")
    toward = {"U": torch.ones_like(yy), "V": 0.01 * yy * (1 - yy), "W": 0.01 * zz * (1 - zz)}
    assert corner_flow(duct, toward) > 0 > corner_flow(duct, {n: -v for n, v in toward.items()})
    linear = {"V": 1.0 - zz}                      # psi = -int_z^1 (1 - z') dz' = -(1 - z)^2 / 2, exact for trapezoids
    assert np.allclose(streamfunction(duct, linear)[:-1], -0.5 * (1 - duct.z.numpy()[None, :]) ** 2)


def test_bad_duct_is_one_line_error():
    with pytest.raises(ValueError, match="aspect >= 1"):
        Duct(360.0, aspect=0.5)
