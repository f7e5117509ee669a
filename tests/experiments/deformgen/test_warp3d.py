"""The warp in 3-D: inverse-distance weights over 3-D neighbours, the 3×3 least-squares Jacobian of a rotated and
shifted point cloud, its SVD polar factor (a proper rotation, det +1, reflections removed), a curved rope lying on
the ground turned about z, and Kabsch (DG*) recovering a 3-D rigid motion."""

import math

import pytest
import torch

from experiments.deformgen.warp import idw_displacement, kabsch, local_jacobian, orthonormalise, yaw

D = torch.float64


def t(x):
    return torch.tensor(x, dtype=D)


def axis_angle(axis, angle) -> torch.Tensor:
    """Rodrigues: R = I + sin θ K + (1 − cos θ) K², K the cross-product matrix of the unit axis."""
    a = t(axis) / t(axis).norm()
    k = t([[0.0, -a[2], a[1]], [a[2], 0.0, -a[0]], [-a[1], a[0], 0.0]])
    return torch.eye(3, dtype=D) + math.sin(angle) * k + (1 - math.cos(angle)) * k @ k


def test_idw_weights_in_3d_are_inverse_distances_of_the_k_nearest():
    p = t([[[0.0, 0.0, 0.0], [0.0, 0.0, 1.0], [0.0, 3.0, 4.0]]])
    delta = t([[[1.0, 0.0, 0.0], [0.0, 0.0, 1.0], [5.0, 5.0, 5.0]]])
    # query (0, 0, 0.25): distances 0.25 and 0.75 -> weights 4 and 4/3 -> (0.75, 0, 0.25); the third is too far
    got = idw_displacement(t([[[0.0, 0.0, 0.25]]]), p, delta, k=2)[0, 0]
    assert torch.allclose(got, t([0.75, 0.0, 0.25]), atol=1e-5)


def test_jacobian_of_a_rotated_and_shifted_point_cloud_is_that_rotation():
    g = torch.Generator().manual_seed(0)
    p = torch.rand(1, 20, 3, generator=g, dtype=D)
    r = axis_angle([1.0, -2.0, 0.5], 0.7)
    q = p @ r.T + t([0.1, -0.2, 0.3])
    j = local_jacobian(t([[[0.5, 0.5, 0.5]]]), p, q - p, k=8)[0, 0]
    assert torch.allclose(j, r, atol=1e-9)
    rot = orthonormalise(j)
    assert torch.allclose(rot, r, atol=1e-9)
    assert float(torch.det(rot)) == pytest.approx(1.0, abs=1e-12)


def test_orthonormalising_a_rotated_3d_stretch_keeps_the_rotation():
    # J = R diag(2, 0.5, 1.5): its polar factor is R
    r = axis_angle([0.3, 0.4, -1.0], -1.1)
    got = orthonormalise(r @ torch.diag(t([2.0, 0.5, 1.5])))
    assert torch.allclose(got, r, atol=1e-12)


@pytest.mark.parametrize("diag", [[1.0, 1.0, -1.0], [-1.0, 2.0, 3.0], [-1.0, -1.0, -1.0]])
def test_a_3d_reflection_is_turned_into_a_proper_rotation(diag):
    r = orthonormalise(torch.diag(t(diag)))
    assert float(torch.det(r)) == pytest.approx(1.0, abs=1e-12)
    assert torch.allclose(r @ r.T, torch.eye(3, dtype=D), atol=1e-12)


def test_a_curved_rope_on_the_ground_turned_about_z_gives_that_turn():
    # the neighbours lie in the plane z = 0 (rank 2): the SVD still fixes the proper rotation about z
    s = torch.linspace(0, 0.1, 7, dtype=D)
    p = torch.stack([s, 0.3 * s ** 2 / 0.1, torch.zeros_like(s)], -1)[None]
    r = axis_angle([0.0, 0.0, 1.0], 0.4)
    q = p @ r.T + t([0.02, 0.01, 0.0])
    rot = orthonormalise(local_jacobian(t([[[0.05, 0.01, 0.0]]]), p, q - p, k=5))[0, 0]
    assert torch.allclose(rot, r, atol=1e-9)
    assert float(yaw(rot)) == pytest.approx(0.4, abs=1e-9)


def test_kabsch_recovers_a_3d_rigid_motion():
    p = torch.rand(3, 6, 3, generator=torch.Generator().manual_seed(1), dtype=D)
    r_true = torch.stack([axis_angle([1.0, 0.0, 0.0], 0.2), axis_angle([1.0, 1.0, 1.0], -2.0),
                          axis_angle([0.0, -1.0, 3.0], 3.0)])
    shift = t([0.3, 0.1, -0.4])
    q = (r_true @ p.transpose(1, 2)).transpose(1, 2) + shift
    r, got = kabsch(p, q)
    assert torch.allclose(r, r_true, atol=1e-9)
    assert torch.allclose(got, shift.expand(3, 3), atol=1e-9)


def test_kabsch_of_a_mirrored_cloud_returns_a_rotation_not_the_mirror():
    p = torch.rand(1, 6, 3, generator=torch.Generator().manual_seed(2), dtype=D)
    r, _ = kabsch(p, p * t([1.0, 1.0, -1.0]))
    assert float(torch.det(r[0])) == pytest.approx(1.0, abs=1e-12)
