"""The B-spline KAN layer against Cox–de Boor by hand and its own scalar reference."""

from __future__ import annotations

import pytest
import torch

from reprolab.models.kan import KAN, KANLayer, bspline_basis, bspline_basis_reference, uniform_knots


def test_quadratic_bspline_on_four_knots_by_hand():
    # knots 0,1,2,3, degree 2: B = x²/2 on [0,1), (-2x²+6x-3)/2 on [1,2), (3-x)²/2 on [2,3)
    knots = torch.tensor([0.0, 1.0, 2.0, 3.0])
    x = torch.tensor([0.5, 1.5, 2.5, 3.5])
    basis = bspline_basis(x, knots, 2)
    assert basis.shape == (4, 1)
    torch.testing.assert_close(basis[:, 0], torch.tensor([0.125, 0.75, 0.125, 0.0]))


def test_linear_hat_on_three_knots_by_hand():
    knots = torch.tensor([0.0, 1.0, 2.0])
    torch.testing.assert_close(bspline_basis(torch.tensor([0.25, 1.0, 1.5]), knots, 1)[:, 0], torch.tensor([0.25, 1.0, 0.5]))


def test_vectorised_basis_matches_scalar_recursion_and_sums_to_one():
    knots = uniform_knots(grid=5, degree=3, grid_range=(-1, 1))
    x = torch.linspace(-0.999, 0.999, 37, dtype=torch.float64)
    basis = bspline_basis(x, knots.double(), 3)
    ref = torch.tensor([[bspline_basis_reference(float(v), knots.tolist(), i, 3) for i in range(8)] for v in x],
                       dtype=torch.float64)
    torch.testing.assert_close(basis, ref)
    torch.testing.assert_close(basis.sum(-1), torch.ones_like(x))  # partition of unity inside the grid


def test_layer_forward_is_the_sum_of_its_edge_functions():
    layer = KANLayer(3, 4, grid=5, degree=3)
    x = torch.rand(7, 2, 3) * 2 - 1                              # any leading dims
    torch.testing.assert_close(layer(x), layer.edge_functions(x).sum(-1), rtol=1e-5, atol=1e-6)
    with torch.no_grad():
        layer.coef.zero_()
        layer.scale_base.fill_(1.0)
    torch.testing.assert_close(layer(x), torch.nn.functional.silu(x).sum(-1, keepdim=True).expand(7, 2, 4))


def test_kan_inner_functions_and_bad_options():
    kan = KAN([2, 5, 3])
    x = torch.rand(4, 2)
    assert kan(x).shape == (4, 3) and kan.inner(x).shape == (4, 5)
    with pytest.raises(ValueError, match="base_activation"):
        KANLayer(2, 2, base_activation="relu6")
    with pytest.raises(ValueError, match="grid"):
        KANLayer(2, 2, grid=0)
