"""Trajectory warping from a source rope state to a deformed one (DeformGen §3.2, deformation-field warping).

With δ_i = p'_i − p_i the per-particle displacements, a waypoint w moves by the k-nearest-neighbour
inverse-distance-weighted displacement δ(w) = Σ_{i∈kNN(w)} ω_i δ_i / Σ ω_i, ω_i = 1 / (|w − p_i| + ε)
(ε = 1e-6 as in the reference's `interpolate_deformation_at_points`), and the gripper's yaw follows the
local Jacobian J = Y Xᵀ (X Xᵀ)⁺ fitted by least squares to the neighbours' centred positions X and their
centred deformed positions Y (`compute_local_deformation_gradient`, k = max(4, k); the reference uses offsets
from the query point without an intercept, so a pure translation leaks into its J; centring makes the fit
affine and a translation gives J = I), made a rotation by SVD,
R = U diag(1, det UVᵀ) Vᵀ (`_orthogonalize_rotations`). DG (`yawonly` in the reference) warps the grasp with
`grasp_k` neighbours and every manipulation waypoint with `manip_k` (the released config: 5 and 99999, the
latter nearly a global inverse-distance average). DG* (`txy`) fits one 2-D rigid transform (Kabsch) to the
`grasp_k` particles nearest the source grasp and applies it, yaw and translation, to the whole trajectory
about the world origin (the robot base), as the reference's `use_local_rigid_baseline` branch does.
`decay` scales each manipulation waypoint's warp by α_t (`none`: 1; `linear`: 1 − s/(S − 1)).
A pose is a position (D coordinates) and a yaw about the vertical. In 3-D the field moves positions by the
full 3-D displacement, and the yaw is that of the polar factor of J's horizontal 2×2 block (the reference
orthonormalises J R_gripper and its `yawonly` mode keeps the yaw); DG* (`txy`) fits its rigid motion in the
table plane, x-y and yaw, and leaves heights as they are.

The field, the Jacobian, its SVD and Kabsch work in any dimension D (points (B, N, D)): in 3-D (`sim.dim=3`) J is
3×3 and R = U diag(1, 1, det UVᵀ) Vᵀ, the proper rotation (det +1) nearest J. J is a rotation's polar factor
only where the neighbours span the space it acts on: a rope lying curved on the ground (rank 2) fixes a turn
about z; a straight run of particles (rank 1) leaves the twist about itself unobserved in 3-D (in 2-D it has
no twist to lose), and the SVD picks one.
"""

from __future__ import annotations

import math

import torch

from reprolab.cli.errors import ConfigError

MODES = ("field", "local_rigid")
DECAYS = ("none", "linear")
EPS = 1e-6


def knn(query: torch.Tensor, points: torch.Tensor, k: int):
    """Distances and indices of the k nearest `points` (B, N, D) to each `query` (B, M, D)."""
    k = min(int(k), points.shape[1])
    dist = torch.cdist(query, points)
    return torch.topk(dist, k, dim=-1, largest=False)


def gather(values: torch.Tensor, idx: torch.Tensor) -> torch.Tensor:
    """values (B, N, D) at idx (B, M, k) -> (B, M, k, D)."""
    b, m, k = idx.shape
    return values.gather(1, idx.reshape(b, m * k, 1).expand(-1, -1, values.shape[-1])).reshape(b, m, k, -1)


def idw_displacement(query, p_orig, delta, k: int) -> torch.Tensor:
    """δ(w): inverse-distance-weighted mean of the k nearest particles' displacements, (B, M, D)."""
    dist, idx = knn(query, p_orig, k)
    w = 1.0 / (dist + EPS)
    w = w / w.sum(-1, keepdim=True)
    return (w[..., None] * gather(delta, idx)).sum(-2)


def local_jacobian(query, p_orig, delta, k: int) -> torch.Tensor:
    """Least-squares local deformation gradient J (B, M, D, D) from the k = max(4, k) nearest particles."""
    _, idx = knn(query, p_orig, max(4, k))
    x = gather(p_orig, idx)                                 # (B, M, k, D) source neighbours
    y = x + gather(delta, idx)                              # their deformed positions
    x, y = x - x.mean(-2, keepdim=True), y - y.mean(-2, keepdim=True)   # affine fit: a shift is not a turn
    xt = x.transpose(-1, -2)                                # (B, M, D, k)
    return y.transpose(-1, -2) @ x @ torch.linalg.pinv(xt @ x)


def orthonormalise(j: torch.Tensor) -> torch.Tensor:
    """Nearest rotation to J (…, D, D) by SVD, with the reflection removed (det = +1): the last left singular
    vector, the one of the smallest singular value, flips sign where det UVᵀ = −1."""
    u, _, vt = torch.linalg.svd(j)
    sign = torch.sign(torch.det(u @ vt))
    u = torch.cat([u[..., :-1], u[..., -1:] * sign[..., None, None]], -1)
    return u @ vt


def yaw(r: torch.Tensor) -> torch.Tensor:
    return torch.atan2(r[..., 1, 0], r[..., 0, 0])


def kabsch(p: torch.Tensor, q: torch.Tensor):
    """Best rigid fit q ≈ R p + t over the points (B, k, D): returns R (B, D, D) with det +1, t (B, D)."""
    pc, qc = p.mean(1, keepdim=True), q.mean(1, keepdim=True)
    h = (p - pc).transpose(1, 2) @ (q - qc)                  # (B, D, D)
    u, _, vt = torch.linalg.svd(h)
    d = torch.sign(torch.det(vt.transpose(1, 2) @ u.transpose(1, 2)))
    ones = torch.ones(*d.shape, p.shape[-1] - 1, dtype=d.dtype)
    diag = torch.diag_embed(torch.cat([ones, d[..., None]], -1))
    r = vt.transpose(1, 2) @ diag @ u.transpose(1, 2)
    return r, qc[:, 0] - (r @ pc[:, 0, :, None])[..., 0]


def rotation(theta: torch.Tensor) -> torch.Tensor:
    c, s = torch.cos(theta), torch.sin(theta)
    return torch.stack([torch.stack([c, -s], -1), torch.stack([s, c], -1)], -2)


def decay_weights(steps: int, decay: str, dtype=torch.float64) -> torch.Tensor:
    if decay not in DECAYS:
        raise ConfigError(f"data.generator.decay={decay!r}; choose one of {', '.join(DECAYS)}")
    if decay == "none" or steps <= 1:
        return torch.ones(steps, dtype=dtype)
    return 1.0 - torch.arange(steps, dtype=dtype) / (steps - 1)


def warp_poses(poses, grasp, p_orig, p_def, mode: str = "field", grasp_k: int = 5, manip_k: int = 99999,
               decay: str = "none"):
    """Warp the source grasp pose (P,) and manipulation poses (S, P), P = D + 1 (position, yaw), to each deformed
    state p_def (B, N, D) of the source state p_orig (N, D). Returns (grasp (B, P), manipulation (B, S, P))."""
    if mode not in MODES:
        raise ConfigError(f"data.generator.warp={mode!r}; choose one of {', '.join(MODES)}")
    b = p_def.shape[0]
    p_orig = p_orig.expand(b, -1, -1)
    delta = p_def - p_orig
    alpha = decay_weights(poses.shape[0], decay)[None, :]
    g = grasp.expand(b, 1, -1)
    w = poses.expand(b, -1, -1)
    turn = lambda q, k: yaw(orthonormalise(local_jacobian(q, p_orig, delta, k)[..., :2, :2]))  # noqa: E731
    if mode == "field":
        g_xy = g[..., :-1] + idw_displacement(g[..., :-1], p_orig, delta, grasp_k)
        g_yaw = g[..., -1] + turn(g[..., :-1], grasp_k)
        w_xy = w[..., :-1] + alpha[..., None] * idw_displacement(w[..., :-1], p_orig, delta, manip_k)
        w_yaw = w[..., -1] + alpha * turn(w[..., :-1], manip_k)
    else:
        _, idx = knn(g[..., :-1], p_orig, grasp_k)
        idx = idx[:, 0]
        pick = lambda pts: pts.gather(1, idx[..., None].expand(-1, -1, pts.shape[-1]))[..., :2]  # noqa: E731
        r, t = kabsch(pick(p_orig), pick(p_def))
        theta = yaw(r)
        g_xy = torch.cat([(r[:, None] @ g[..., :2, None])[..., 0] + t[:, None], g[..., 2:-1]], -1)
        g_yaw = g[..., -1] + theta[:, None]
        r_t = rotation(alpha * theta[:, None])                                    # (B, S, 2, 2)
        w_xy = torch.cat([(r_t @ w[..., :2, None])[..., 0] + alpha[..., None] * t[:, None], w[..., 2:-1]], -1)
        w_yaw = w[..., -1] + alpha * theta[:, None]
    return torch.cat([g_xy, g_yaw[..., None]], -1)[:, 0], torch.cat([w_xy, w_yaw[..., None]], -1)


def wrap(theta: torch.Tensor) -> torch.Tensor:
    return (theta + math.pi) % (2 * math.pi) - math.pi
