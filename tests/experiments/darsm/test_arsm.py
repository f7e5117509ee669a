"""The implicit ARSM against hand-worked numbers, and its closed pure-shear form against the general 9x9 solve."""

import math

import pytest
import torch

from experiments.darsm.arsm import WJ_CONSTANTS, pure_shear_anisotropy, solve_anisotropy

pytestmark = pytest.mark.usefixtures("float64_default")


def _coeffs(n, **values):
    return {k: torch.full((n,), float(values.get(k, v))) for k, v in WJ_CONSTANTS.items()}


def test_wj_log_layer_numbers_by_hand():
    # WJ at s = S_12 = 1.67: N solves N^3 - 1.8 N^2 + (4 - 5.4) s^2 N - 7.2 s^2 = 0; by hand N = 4.0167,
    # a_12 = -1.2 s N / (N^2 + 4 s^2) = -0.2950 (the log layer's <uv>/k = -0.3) and P/eps = -2 s a_12 = 0.985
    s = torch.tensor([1.67])
    b12, a, N = pure_shear_anisotropy(s, _coeffs(1))
    assert math.isclose(float(N), 4.0167, abs_tol=1e-4)
    assert math.isclose(float(a[0, 0, 1]), -0.2950, abs_tol=1e-4)
    assert math.isclose(float(-2 * s * a[0, 0, 1]), 0.985, abs_tol=1e-3)
    assert math.isclose(float(N), float(1.8 + 2.25 * (-2 * s * a[0, 0, 1])), rel_tol=1e-12)


def test_vanishing_strain_gives_n_equal_a3():
    b12, a, N = pure_shear_anisotropy(torch.zeros(1), _coeffs(1))
    assert math.isclose(float(N), 1.8, rel_tol=1e-14) and math.isclose(float(b12), -1.2 / 1.8, rel_tol=1e-12) and float(a.abs().max()) == 0.0


def test_closed_form_equals_general_solve_with_a2():
    s = torch.tensor([0.0, 0.3, 1.67, -2.0, 6.0, 40.0])
    c = _coeffs(6, A1=1.3, A2=0.4, A3=1.7, A4=2.1)
    _, a, N = pure_shear_anisotropy(s, c)
    S = torch.zeros(6, 3, 3)
    S[:, 0, 1] = S[:, 1, 0] = s
    W = torch.zeros(6, 3, 3)
    W[:, 0, 1], W[:, 1, 0] = s, -s
    a_ref, N_ref = solve_anisotropy(S, W, c)
    assert torch.allclose(a, a_ref, atol=1e-13) and torch.allclose(N, N_ref, rtol=1e-12)
    assert torch.allclose(a.diagonal(dim1=-2, dim2=-1).sum(-1), torch.zeros(6), atol=1e-14)   # traceless


@pytest.mark.parametrize("a2", [0.0, 0.4])
def test_planar_closed_form_equals_general_solve_for_any_2d_strain_and_rotation(a2):
    from experiments.darsm.arsm import planar_anisotropy

    gen = torch.Generator().manual_seed(0)
    n = 40
    sxx, sxy, wxy = (3.0 * torch.randn(n, generator=gen) for _ in range(3))
    S, W = torch.zeros(n, 3, 3), torch.zeros(n, 3, 3)
    S[:, 0, 0], S[:, 1, 1], S[:, 0, 1], S[:, 1, 0] = sxx, -sxx, sxy, sxy
    W[:, 0, 1], W[:, 1, 0] = wxy, -wxy
    c = _coeffs(n, A1=1.3, A2=a2, A3=1.7, A4=2.1)
    assert torch.allclose(planar_anisotropy(S, W, c), solve_anisotropy(S, W, c)[0], atol=1e-10)
