"""The implicit algebraic Reynolds-stress model (ARSM), Wallin & Johansson's form, solved exactly per cell.

Wallin & Johansson (2000, J. Fluid Mech. 403, 89-132, eqs. 2.10-2.12, c2 = 5/9) write the weak-equilibrium
Reynolds-stress equations as one implicit relation for the anisotropy a = <u_i u_j>/k - 2/3 I:

    N a = -A1 S + (a W - W a) - A2 (a S + S a - 2/3 tr(a S) I),    N = A3 + A4 P/eps,    P/eps = -tr(a S),

with S, W the strain and rotation tensors scaled by tau = k/eps. WJ's constants: A1 = 6/5, A2 = 0 (c2 = 5/9
removes the aS + Sa term; the Gatski-Speziale/SSG form keeps it), A3 = C1' = 9/4 (C1 - 1) = 1.8, A4 = 9/4.
DARSM's network maps invariants to (A1, A2, A3, A4) per cell; the relation stays implicit (a on both sides,
N depending on a). `solve_anisotropy` is the general 3-D reference (a 9x9 linear system for vec(a) at fixed
N, Newton on the scalar N); `pure_shear_anisotropy` is its closed form for a parallel shear flow, the fast
path the channel uses (a test holds them equal). Both find N with detached Newton iterations and then take
one live Newton step from the root: the value is unchanged and the derivative is -f_theta / f_N, the
implicit-function theorem, so the inner iterations never enter any gradient.
"""

from __future__ import annotations

import torch

WJ_CONSTANTS = {"A1": 1.2, "A2": 0.0, "A3": 1.8, "A4": 2.25}


def _vec_operator(S: torch.Tensor, W: torch.Tensor, A2: torch.Tensor) -> torch.Tensor:
    """The 9x9 matrix M with vec(aW - Wa - A2 (aS + Sa - 2/3 tr(aS) I)) = M vec(a) (row-major vec)."""
    eye = torch.eye(3, dtype=S.dtype, device=S.device).expand_as(S)

    def kron(A, B):
        return (A[..., :, None, :, None] * B[..., None, :, None, :]).reshape(*A.shape[:-2], 9, 9)

    rotation = kron(eye, W.transpose(-1, -2)) - kron(W, eye)
    strain = kron(eye, S) + kron(S, eye)
    trace = eye.reshape(*S.shape[:-2], 9, 1) * S.reshape(*S.shape[:-2], 1, 9)
    return rotation - A2[..., None, None] * (strain - 2.0 / 3.0 * trace)


def solve_anisotropy(S: torch.Tensor, W: torch.Tensor, coeffs: dict, newton_iters: int = 40):
    """General implicit ARSM: a (..., 3, 3) and N (...) for tau-scaled S, W (..., 3, 3)."""
    A1, A2, A3, A4 = (coeffs[name] for name in ("A1", "A2", "A3", "A4"))
    eye9 = torch.eye(9, dtype=S.dtype, device=S.device)
    M = _vec_operator(S, W, A2)
    rhs = -A1[..., None] * S.reshape(*S.shape[:-2], 9)
    s_vec = S.reshape(*S.shape[:-2], 9)

    def solve(N, M_, rhs_):
        return torch.linalg.solve(N[..., None, None] * eye9 - M_, rhs_)

    def residual(N, a, s_vec_, A3_, A4_):
        return N - A3_ + A4_ * (a * s_vec_).sum(-1)

    d = [t.detach() for t in (M, rhs, s_vec, A1, A3, A4)]
    M_d, rhs_d, s_d, A1_d, A3_d, A4_d = d
    strain2 = (s_d * s_d).sum(-1)
    N = 0.5 * (A3_d + torch.sqrt(A3_d ** 2 + 4.0 * A1_d * A4_d * strain2)) + 1e-3
    for _ in range(newton_iters):
        a = solve(N, M_d, rhs_d)
        slope = 1.0 + A4_d * (-solve(N, M_d, a) * s_d).sum(-1)
        N = N - residual(N, a, s_d, A3_d, A4_d) / slope
    slope = 1.0 + A4_d * (-solve(N, M_d, solve(N, M_d, rhs_d)) * s_d).sum(-1)
    N_live = N - residual(N, solve(N, M, rhs), s_vec, A3, A4) / slope
    return solve(N_live, M, rhs).reshape(S.shape), N_live


def largest_cubic_root(b: torch.Tensor, p: torch.Tensor, d: torch.Tensor) -> torch.Tensor:
    """Largest real root of N^3 - b N^2 + p N - d = 0 (Cardano, or Viete's cosine form for three real roots)."""
    P = p - b ** 2 / 3.0
    Q = -2.0 * b ** 3 / 27.0 + b * p / 3.0 - d
    D = Q ** 2 / 4.0 + P ** 3 / 27.0
    sqrt_D = torch.sqrt(D.clamp_min(0.0))
    one_real = torch.sign(-Q / 2 + sqrt_D) * (-Q / 2 + sqrt_D).abs() ** (1 / 3) \
        + torch.sign(-Q / 2 - sqrt_D) * (-Q / 2 - sqrt_D).abs() ** (1 / 3)
    P_neg = torch.minimum(P, torch.full_like(P, -1e-300))
    cos_arg = (1.5 * Q / P_neg * torch.sqrt(-3.0 / P_neg)).clamp(-1.0, 1.0)
    three_real = 2.0 * torch.sqrt(-P_neg / 3.0) * torch.cos(torch.arccos(cos_arg) / 3.0)
    return torch.where(D > 0, one_real, three_real) + b / 3.0


def planar_coefficients(sigma: torch.Tensor, omega2: torch.Tensor, coeffs: dict, newton_iters: int = 2):
    """The implicit ARSM in closed form for a 2-D mean flow (S, W in the x-y plane): (b1, b2, b3, N) with

        a = b1 S + b2 (S W - W S) + b3 (S^2 - tr(S^2)/3 I),   sigma = tr(S^2)/2,   omega2 = -tr(W^2)/2,

    the complete 2-D tensor basis (Wallin & Johansson 2000, sec. 3, there with A2 = 0). Substituting it into
    N a = -A1 S + (aW - Wa) - A2 (aS + Sa - 2/3 tr(aS) I) with S^2 = sigma P, W^2 = -omega2 P, WSW = omega2 S
    (P the in-plane identity) gives b2 = b1 / N, b3 = -2 A2 b1 / (N sigma)... per sigma: b3 sigma = -2 A2 b1 / N,
    b1 = -A1 N / (N^2 + D), D = 4 omega2 - 4/3 A2^2 sigma, and with P/eps = -tr(aS) = -2 sigma b1 the cubic
    N^3 - A3 N^2 + (D - 2 A1 A4 sigma) N - A3 D = 0, solved for its largest root (WJ's, N >= A3) in closed
    form, polished by `newton_iters` detached Newton steps and one live step (implicit-function derivative)."""
    A1, A2, A3, A4 = (coeffs[name] for name in ("A1", "A2", "A3", "A4"))

    def cubic(N, A1_, A2_, A3_, A4_, sg, om):
        D = 4.0 * om - 4.0 / 3.0 * A2_ ** 2 * sg
        return N ** 3 - A3_ * N ** 2 + (D - 2.0 * A1_ * A4_ * sg) * N - A3_ * D

    def slope(N, A1_, A2_, A3_, A4_, sg, om):
        D = 4.0 * om - 4.0 / 3.0 * A2_ ** 2 * sg
        return 3.0 * N ** 2 - 2.0 * A3_ * N + (D - 2.0 * A1_ * A4_ * sg)

    d = [t.detach() for t in (A1, A2, A3, A4, sigma, omega2)]
    D = 4.0 * d[5] - 4.0 / 3.0 * d[1] ** 2 * d[4]
    N = largest_cubic_root(d[2], D - 2.0 * d[0] * d[3] * d[4], d[2] * D)
    for _ in range(newton_iters):
        N = N - cubic(N, *d) / slope(N, *d)
    N = N - cubic(N, A1, A2, A3, A4, sigma, omega2) / slope(N, *d)
    b1 = -A1 * N / (N ** 2 + 4.0 * omega2 - 4.0 / 3.0 * A2 ** 2 * sigma)
    return b1, b1 / N, -2.0 * A2 * b1 / N, N


def planar_anisotropy(S: torch.Tensor, W: torch.Tensor, coeffs: dict) -> torch.Tensor:
    """a (..., 3, 3) of the implicit ARSM for tau-scaled in-plane S, W (..., 3, 3): `planar_coefficients`'s
    closed form, equal to `solve_anisotropy`'s 9x9 solve (a test) at a fraction of its cost."""
    S2 = S @ S
    sigma = 0.5 * S2.diagonal(dim1=-2, dim2=-1).sum(-1)
    omega2 = -0.5 * (W @ W).diagonal(dim1=-2, dim2=-1).sum(-1)
    b1, b2, b3, _ = planar_coefficients(sigma, omega2, coeffs)
    eye = torch.eye(3, dtype=S.dtype, device=S.device)
    return b1[..., None, None] * S + b2[..., None, None] * (S @ W - W @ S) \
        + b3[..., None, None] * (S2 - 2.0 / 3.0 * sigma[..., None, None] * eye)


def pure_shear_anisotropy(s: torch.Tensor, coeffs: dict, newton_iters: int = 2):
    """`planar_coefficients` for S = s (e_x e_y + e_y e_x), W = s (e_x e_y - e_y e_x) (sigma = omega2 = s^2).

    Per unit shear: a_12 = s b_12 with b_12 = b1 = -A1 N / (N^2 + c s^2), c = 4 - 4 A2^2 / 3, and N the largest
    root of N^3 - A3 N^2 + (c - 2 A1 A4) s^2 N - A3 c s^2 = 0. Returns (b_12, a (..., 3, 3), N); b_12 stays
    finite as s -> 0, so nu_t = -k tau b_12 / 2 never divides by zero.
    """
    s2 = s * s
    b12, _, _, N = planar_coefficients(s2, s2, coeffs, newton_iters)
    A2 = coeffs["A2"]
    a12 = s * b12
    row = s * a12 / N
    a11, a22, a33 = -(2.0 + 2.0 * A2 / 3.0) * row, (2.0 - 2.0 * A2 / 3.0) * row, 4.0 / 3.0 * A2 * row
    a = torch.stack([torch.stack([a11, a12, torch.zeros_like(s)], -1),
                     torch.stack([a12, a22, torch.zeros_like(s)], -1),
                     torch.stack([torch.zeros_like(s), torch.zeros_like(s), a33], -1)], -2)
    return b12, a, N
