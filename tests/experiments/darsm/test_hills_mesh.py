"""The periodic hill's shape (Mellen et al. 2000, alpha-stretched as Xiao et al. 2020) and its body-fitted mesh."""

import pytest
import scipy.integrate as si
import torch

from experiments.darsm.hills_mesh import FOOT, PIECES, HillsMesh, _half_hill, default_length, hill_profile


def _t(values):
    return torch.tensor(values, dtype=torch.float64)


def test_crest_height_and_zero_slope_at_crest_and_foot():
    y, dy = hill_profile(_t([0.0, 1e-6, FOOT - 1e-6, FOOT + 0.1]), alpha=1.0)
    assert y[0] == pytest.approx(1.0, abs=1e-12)
    assert abs(float(dy[1])) < 1e-9 and abs(float(dy[2])) < 1e-3
    assert abs(float(y[3])) < 1e-12


@pytest.mark.parametrize("joint", [upper for upper, _ in PIECES[:-1]])
def test_pieces_are_continuous_in_value_and_slope(joint):
    eps = 1e-7
    y, dy = _half_hill(_t([joint - eps, joint + eps]))
    assert abs(float(y[0] - y[1])) < 1e-6
    assert abs(float(dy[0] - dy[1])) < 1e-6


@pytest.mark.parametrize("alpha", [0.5, 1.0, 1.5])
def test_alpha_stretches_the_hill_and_the_domain(alpha):
    L = default_length(alpha)
    assert L == pytest.approx(3.858 * alpha + 5.142)
    x = _t([0.3, 0.9, 1.5])
    y_alpha, _ = hill_profile(x * alpha, alpha=alpha)
    y_one, _ = hill_profile(x, alpha=1.0)
    assert torch.allclose(y_alpha, y_one)
    y_mirror, _ = hill_profile(L - x * alpha, alpha=alpha)       # the windward hill mirrors the leeward one
    assert torch.allclose(y_mirror, y_one)


def _fluid_area(mesh):
    L = mesh.length
    corners = [p / 28 * mesh.alpha for p, _ in PIECES]
    points = corners + [L - c for c in corners]
    hill = si.quad(lambda x: float(hill_profile(_t([x]), mesh.alpha, L)[0][0]), 0, L, points=points, limit=400)[0]
    return L * mesh.top - hill


@pytest.mark.parametrize("alpha,length,top", [(1.0, None, 3.036), (0.5, 4.071, 2.024), (1.5, 13.929, 4.048)])
def test_cells_are_positive_and_tile_the_fluid(alpha, length, top):
    coarse, fine = (HillsMesh(alpha, nx=n, ny=n, length=length, top=top) for n in (24, 96))
    assert float(coarse.cell_areas().min()) > 0 and float(coarse.jac.min()) > 0
    exact = _fluid_area(coarse)
    err_coarse = abs(float(coarse.cell_areas().sum()) - exact)
    err_fine = abs(float(fine.cell_areas().sum()) - exact)
    assert err_fine < 1e-4 * exact and err_fine < err_coarse / 8     # polygon area converges at 2nd order or better


def test_metrics_match_finite_differences_of_the_nodes():
    mesh = HillsMesh(1.0, nx=400, ny=40)
    fd_eta = 0.5 * (mesh.y[:, 2:] - mesh.y[:, :-2])
    assert torch.allclose(fd_eta, mesh.y_eta[:, 1:-1], rtol=2e-2)
    fd_xi = 0.5 * (torch.roll(mesh.y, -1, 0) - torch.roll(mesh.y, 1, 0))
    assert float((fd_xi - mesh.y_xi).abs().max()) < 0.02 * float(mesh.y_xi.abs().max())


def test_flat_wall_limit_and_bad_input():
    flat = HillsMesh(1.0, nx=8, ny=8, hill_height=0.0, top=2.0)
    assert float(flat.y[:, 0].abs().max()) == 0.0 and float(flat.y_xi.abs().max()) == 0.0
    with pytest.raises(ValueError, match="top wall"):
        HillsMesh(1.0, top=0.5)
    with pytest.raises(ValueError, match="alpha"):
        hill_profile(_t([0.0]), alpha=1.0, length=1.0)
