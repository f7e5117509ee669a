"""The deformation-field warp against hand-worked numbers: inverse-distance weights, the least-squares
Jacobian and its SVD orthonormalisation, the local rigid (Kabsch) fit, and the decay of the manipulation warp."""

import math

import pytest
import torch

from experiments.deformgen.warp import (
    decay_weights,
    idw_displacement,
    kabsch,
    local_jacobian,
    orthonormalise,
    rotation,
    warp_poses,
    yaw,
)
from reprolab.cli.errors import ConfigError

D = torch.float64


def t(x):
    return torch.tensor(x, dtype=D)


def test_idw_weights_are_inverse_distances_of_the_k_nearest():
    p = t([[[0.0, 0.0], [1.0, 0.0], [3.0, 0.0]]])
    delta = t([[[1.0, 0.0], [0.0, 1.0], [0.0, 0.0]]])
    # query 0.25: distances 0.25 and 0.75 -> weights 4 and 4/3 -> (0.75, 0.25); the third particle is not a neighbour
    got = idw_displacement(t([[[0.25, 0.0]]]), p, delta, k=2)[0, 0]
    assert torch.allclose(got, t([0.75, 0.25]), atol=1e-5)
    # with k = 3, weights 4, 4/3, 4/11 over their sum
    w = torch.tensor([4.0, 4 / 3, 4 / 11], dtype=D)
    want = (w[:, None] * delta[0]).sum(0) / w.sum()
    assert torch.allclose(idw_displacement(t([[[0.25, 0.0]]]), p, delta, k=99)[0, 0], want, atol=1e-5)


def test_jacobian_of_a_rigid_rotation_is_that_rotation():
    g = torch.Generator().manual_seed(0)
    p = torch.rand(1, 12, 2, generator=g, dtype=D)
    r = rotation(t(0.4))
    q = p @ r.T + t([0.1, -0.2])
    j = local_jacobian(t([[[0.5, 0.5]]]), p, q - p, k=6)[0, 0]
    assert torch.allclose(j, r, atol=1e-9)
    assert float(yaw(orthonormalise(j))) == pytest.approx(0.4, abs=1e-9)


def test_orthonormalising_a_rotated_stretch_keeps_the_rotation():
    # J = R(30 deg) diag(2, 0.5): the polar factor is R(30 deg)
    j = rotation(t(math.radians(30))) @ torch.diag(t([2.0, 0.5]))
    r = orthonormalise(j)
    assert torch.allclose(r @ r.T, torch.eye(2, dtype=D), atol=1e-12)
    assert float(yaw(r)) == pytest.approx(math.radians(30), abs=1e-12)


def test_a_reflection_is_turned_into_a_proper_rotation():
    r = orthonormalise(torch.diag(t([1.0, -1.0])))
    assert float(torch.det(r)) == pytest.approx(1.0)


def test_collinear_rope_neighbours_still_give_the_rope_rotation():
    # particles on a line (a rope): X X^T is singular, the pseudo-inverse still recovers the turn of the line
    p = torch.stack([torch.linspace(0, 0.1, 6, dtype=D), torch.zeros(6, dtype=D)], -1)[None]
    q = p @ rotation(t(0.3)).T
    j = local_jacobian(t([[[0.05, 0.0]]]), p, q - p, k=5)
    assert float(yaw(orthonormalise(j))[0, 0]) == pytest.approx(0.3, abs=1e-9)


def test_kabsch_recovers_a_rigid_motion():
    p = torch.rand(3, 5, 2, generator=torch.Generator().manual_seed(1), dtype=D)
    theta = t([0.1, -0.5, 1.0])
    r_true = rotation(theta)
    q = (r_true @ p.transpose(1, 2)).transpose(1, 2) + t([0.3, 0.1])
    r, shift = kabsch(p, q)
    assert torch.allclose(r, r_true, atol=1e-9)
    assert torch.allclose(shift, t([0.3, 0.1]).expand(3, 2), atol=1e-9)


def test_decay_weights():
    assert decay_weights(5, "none").tolist() == [1.0] * 5
    assert decay_weights(5, "linear").tolist() == [1.0, 0.75, 0.5, 0.25, 0.0]
    with pytest.raises(ConfigError, match="data.generator.decay"):
        decay_weights(5, "cosine")


def rope_and_plan():
    p = torch.stack([torch.linspace(-0.2, 0.2, 11, dtype=D), torch.zeros(11, dtype=D)], -1)
    poses = t([[-0.2, 0.0, 1.5], [-0.3, 0.1, 1.5], [-0.4, 0.2, 1.5]])
    return p, poses


def test_field_warp_of_a_translation_moves_every_waypoint_by_it():
    p, poses = rope_and_plan()
    shift = t([0.05, -0.02])
    grasp, manip = warp_poses(poses, poses[0], p, (p + shift)[None], mode="field", manip_k=99999, decay="none")
    assert torch.allclose(grasp[0, :2], poses[0, :2] + shift, atol=1e-9)
    assert torch.allclose(manip[0, :, :2], poses[:, :2] + shift, atol=1e-9)
    assert torch.allclose(manip[0, :, 2], poses[:, 2], atol=1e-9)
    _, decayed = warp_poses(poses, poses[0], p, (p + shift)[None], mode="field", decay="linear")
    assert torch.allclose(decayed[0, -1], poses[-1])            # the last waypoint (at the fixed goal) stays


def test_local_rigid_warp_maps_the_grasp_by_the_local_fit_and_turns_the_trajectory_about_the_origin():
    p, poses = rope_and_plan()
    r = rotation(t(0.2))
    q = p @ r.T + t([0.01, 0.03])
    grasp, manip = warp_poses(poses, poses[0], p, q[None], mode="local_rigid", grasp_k=5, decay="none")
    assert torch.allclose(grasp[0, :2], r @ poses[0, :2] + t([0.01, 0.03]), atol=1e-9)
    assert float(grasp[0, 2]) == pytest.approx(1.7, abs=1e-9)
    assert torch.allclose(manip[0, :, :2], poses[:, :2] @ r.T + t([0.01, 0.03]), atol=1e-9)


def test_an_unknown_warp_mode_is_one_clear_error():
    p, poses = rope_and_plan()
    with pytest.raises(ConfigError, match="data.generator.warp=.affine."):
        warp_poses(poses, poses[0], p, p[None], mode="affine")
