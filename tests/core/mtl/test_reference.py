"""Every weighting against its paper's equation on a linear model with exactly known per-task gradients
(`linear.py`): conflicting, near-parallel and very different gradient norms, stateful methods over several
steps, heads on their own loss. Each reference below is written from the paper (and, where the paper leaves a
choice, from the authors' code), independently of the implementation it checks.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import torch

from reprolab.mtl.weightings import NAMES, build_weighting
from tests.core.mtl.linear import CASES, LOSSES, AdamRef, engine_step

EPS32 = float(np.finfo(np.float32).eps)
F32 = {"rtol": 1e-5, "atol": 1e-6}  # methods whose learnable state (UW's s, FAMO's ξ, ...) is a float32 parameter


def close(a, b, rtol=1e-7, atol=1e-10):
    np.testing.assert_allclose(np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64), rtol=rtol, atol=atol)


def run(name, G, L=None, steps=1, seed=0, heads="own", **kwargs):
    """The engine's (shared update, head weights) over `steps` steps with fixed gradients and losses."""
    torch.manual_seed(seed)
    w = build_weighting(name, len(G), **kwargs)
    out = []
    for k in range(steps):
        losses = None if L is None else np.asarray(L[k] if np.ndim(L) == 2 else L, dtype=np.float64)
        d, head, _ = engine_step(w, G, L=losses, heads=heads)
        out.append((d, head.diagonal().copy()))  # H = I: head t's gradient is (head weight t)·e_t
    return out


# ---------------------------------------------------------------- MGDA: the exact min-norm point
def min_norm_by_active_sets(G):
    """Enumerate every face of the simplex: the affine minimiser of ‖Σ_S a_i g_i‖² (Σ a = 1) on each support S;
    the min-norm point is the best one with a ≥ 0 (Sener & Koltun 2018, eq. 3; Wolfe 1976)."""
    gram, T, best = G @ G.T, len(G), None
    for k in range(1, T + 1):
        for S in itertools.combinations(range(T), k):
            S = list(S)
            kkt = np.block([[gram[np.ix_(S, S)], np.ones((k, 1))], [np.ones((1, k)), np.zeros((1, 1))]])
            a = np.linalg.lstsq(kkt, np.r_[np.zeros(k), 1.0], rcond=None)[0][:k]
            if (a >= -1e-12).all():
                d = a @ G[S]
                if best is None or d @ d < best @ best:
                    best = d
    return best


@pytest.mark.parametrize("case", list(CASES))
def test_mgda_is_the_min_norm_point_of_the_hull(case):
    G = CASES[case]
    (d, head), = run("mgda", G)
    scale = np.linalg.norm(G, axis=1).max()
    close(d, min_norm_by_active_sets(G), rtol=1e-9, atol=1e-12 * scale)
    close(head, np.ones(len(G)))  # heads: their own loss, not the MGDA weight


def test_mgda_on_many_random_five_task_problems_matches_enumeration():
    rng = np.random.default_rng(0)
    for _ in range(50):
        G = rng.standard_normal((5, 8)) * np.geomspace(0.1, 10.0, 5)[:, None]
        (d, _), = run("mgda", G)
        close(d, min_norm_by_active_sets(G), rtol=1e-8, atol=1e-11)


def test_mgda_two_tasks_by_hand():
    # |a g1 + (1−a) g2|² with g1 = (1, 0), g2 = (−1, 1): minimised at a = 0.6 → (0.2, 0.4)
    (d, _), = run("mgda", np.array([[1.0, 0.0], [-1.0, 1.0]]))
    close(d, [0.2, 0.4])


# ---------------------------------------------------------------- loss-based
@pytest.mark.parametrize("case", list(CASES))
def test_ew_sums_and_heads_follow_their_own_loss(case):
    G = CASES[case]
    (d, head), = run("ew", G)
    close(d, G.sum(0))
    close(head, np.ones(len(G)))


def test_single_task_trains_the_trunk_and_its_head_only():
    G = CASES["conflicting"]
    (d, head), = run("single", G, task=1)
    close(d, G[1])
    close(head, [0.0, 1.0, 0.0])


def test_uw_over_five_steps():
    # Kendall et al. eq. 7 (s = log σ²): w = ½e^{−s}; s takes Adam steps on ∂/∂s = −½e^{−s}L + ½
    G, L = CASES["norms"], np.array([[2.0, 0.1, 1.0], [1.5, 0.1, 0.9], [1.0, 0.2, 0.8], [0.8, 0.2, 0.7], [0.5, 0.3, 0.6]])
    adam = AdamRef(np.zeros(3), lr=1e-2)
    for (d, head), losses in zip(run("uw", G, L, steps=5), L, strict=True):
        w = 0.5 * np.exp(-adam.x)
        close(d, w @ G, **F32)
        close(head, w, **F32)   # loss-based: the heads see the weighted objective
        adam.step(-0.5 * np.exp(-adam.x) * losses + 0.5)


def test_dwa_over_four_epochs():
    # MTAN eq. 5: w_t = T softmax(r_t / temp), r_t = L̄_t(e−1) / L̄_t(e−2); w = 1 in the first two epochs
    dwa = build_weighting("dwa", 2, temp=2.0)
    epochs = [[[4.0, 4.0], [4.0, 4.0]], [[2.0, 4.0], [2.0, 4.0]], [[1.0, 3.0], [1.0, 5.0]], [[1.0, 1.0]]]
    means = []
    for e, epoch in enumerate(epochs):
        for losses in epoch:
            w = dwa(torch.tensor(losses)).loss_weights.numpy()
            if e < 2:
                close(w, [1.0, 1.0])
            else:
                r = np.array(means[-1]) / np.array(means[-2])
                close(w, 2 * np.exp(r / 2) / np.exp(r / 2).sum(), rtol=1e-6)
        means.append(np.mean(epoch, axis=0))
        dwa.epoch_end()


def test_rlw_draws_softmax_of_a_standard_normal():
    G = CASES["conflicting"]
    for seed in range(3):
        (d, head), = run("rlw", G, seed=seed)
        torch.manual_seed(seed)
        z = torch.randn(3, dtype=torch.float64).numpy()
        w = np.exp(z) / np.exp(z).sum()
        close(d, w @ G)
        close(head, w)


@pytest.mark.parametrize("after", ["same_batch", "next_batch"])
def test_famo_over_six_steps(after):
    # Liu et al. 2023, Alg. 1: w = c z / L, c = 1 / Σ z/L, z = softmax ξ; ξ ← Adam(lr 0.025, L2 0.001) down
    # J_softmax(ξ)ᵀ δ, δ = log L(before) − log L(after), with "after" the same batch after the step or the next batch
    eps = 1e-8
    before = np.array([[1.0, 2.0], [0.9, 2.0], [0.8, 1.9], [0.7, 1.9], [0.6, 1.8], [0.5, 1.8]])
    after_same = before * np.array([0.95, 1.0])
    famo = build_weighting("famo", 2, after=after)
    adam, prev = AdamRef(np.zeros(2), lr=0.025, weight_decay=1e-3), None

    def step_xi(lb, la):
        z = np.exp(adam.x) / np.exp(adam.x).sum()
        delta = np.log(lb + eps) - np.log(la + eps)
        adam.step(z * (delta - z @ delta))

    for k in range(6):
        if after == "next_batch" and prev is not None:
            step_xi(prev, before[k])
        z = np.exp(adam.x) / np.exp(adam.x).sum()
        expected = z / (before[k] + eps) / (z / (before[k] + eps)).sum()
        close(famo(torch.tensor(before[k])).loss_weights.numpy(), expected, rtol=1e-5)
        prev = before[k]
        if after == "same_batch":
            famo.observe_after(torch.tensor(after_same[k]))
            step_xi(before[k], after_same[k])
    assert famo.wants_after_losses == (after == "same_batch")


def test_gradnorm_over_five_steps():
    # Chen et al. 2018, eqs. 1-2: G_t = w_t‖g_t‖, target mean(G)·(r_t / mean r)^α held constant, one Adam step of
    # w on Σ|G_t − target_t| (gradient sign(G_t − target_t)·‖g_t‖), clamp, renormalise to Σw = T
    G = CASES["norms"]
    L = np.array([[2.0, 0.1, 1.0], [1.8, 0.1, 0.5], [1.6, 0.09, 0.3], [1.5, 0.09, 0.2], [1.4, 0.08, 0.15]])
    norms, w, adam, initial = np.linalg.norm(G, axis=1), np.ones(3), None, L[0]
    adam = AdamRef(w, lr=1e-2)
    for (d, head), losses in zip(run("gradnorm", G, L, steps=5), L, strict=True):
        close(d, adam.x @ G, rtol=1e-5)
        close(head, adam.x, rtol=1e-5)
        r = losses / initial
        target = (adam.x * norms).mean() * (r / r.mean()) ** 1.5
        x = adam.step(np.sign(adam.x * norms - target) * norms)
        adam.x = np.maximum(x, 1e-6) * 3 / np.maximum(x, 1e-6).sum()


# ---------------------------------------------------------------- DB-MTL, as in the authors' code
@pytest.mark.parametrize("case", ["conflicting", "norms"])
def test_dbmtl_over_four_steps(case):
    # Lin et al. 2023: b ← β_k b + (1−β_k) ∇log L, b = 0 at the start, β_k = β/k^σ (β 0.9, σ 0);
    # d = Σ_t (max‖b‖/‖b_t‖) b_t; heads ∇log L_t = ∇L_t / L_t
    G, eps = CASES[case], 1e-8
    L = np.array([LOSSES[case], np.array(LOSSES[case]) * 0.8, np.array(LOSSES[case]) * 0.7, np.array(LOSSES[case]) * 0.5])
    b = np.zeros_like(G)
    for k, ((d, head), losses) in enumerate(zip(run("dbmtl", G, L, steps=4), L, strict=True), start=1):
        lg = G / (losses[:, None] + eps)
        beta_k = 0.9 / k**0.0
        b = beta_k * b + (1 - beta_k) * lg
        alpha = np.linalg.norm(b, axis=1).max() / (np.linalg.norm(b, axis=1) + eps)
        close(d, alpha @ b, rtol=1e-9)
        close(head, 1.0 / (losses + eps), rtol=1e-12)
    # the first step moves by (1 − β) of the balanced log-gradient, not by all of it
    (d1, _), = run("dbmtl", G, L[:1])
    lg = G / L[0][:, None]
    close(d1, 0.1 * (np.linalg.norm(lg, axis=1).max() / np.linalg.norm(lg, axis=1)) @ lg, rtol=1e-6)


# ---------------------------------------------------------------- PCGrad, GradDrop: the same random draws
@pytest.mark.parametrize("include_self", [True, False])
@pytest.mark.parametrize("case", list(CASES))
def test_pcgrad_projects_in_the_random_order_of_alg_1(case, include_self):
    G = CASES[case]
    (d, head), = run("pcgrad", G, seed=3, include_self=include_self)
    torch.manual_seed(3)
    expected = np.zeros(G.shape[1])
    for i in range(len(G)):
        g = G[i].copy()
        for j in torch.randperm(len(G)).tolist():
            if j == i and not include_self:
                continue
            if g @ G[j] < 0:
                g = g - (g @ G[j]) / (G[j] @ G[j]) * G[j]
        expected += g
    close(d, expected, rtol=1e-9, atol=1e-12)
    close(head, np.ones(len(G)))


def test_pcgrad_two_tasks_by_hand():
    # g1' = g1 − (g1·g2/|g2|²) g2 = (0.5, 0.5); g2' = g2 − (g2·g1/|g1|²) g1 = (0, 1); sum (0.5, 1.5)
    (d, _), = run("pcgrad", np.array([[1.0, 0.0], [-1.0, 1.0]]))
    close(d, [0.5, 1.5])


def test_pcgrad_with_its_own_gradient_in_the_order_removes_the_part_against_it():
    # one projection never turns g_i^PC against g_i (‖g_i‖²(1 − cos²) ≥ 0), two can: found on four 3-D gradients
    G = np.array([[0.2, 0.8, 1.0], [-1.4, 2.0, 0.9], [-0.4, -0.8, -1.0], [0.1, -0.6, -0.8]])
    found = False
    for seed in range(6):
        (with_self, _), = run("pcgrad", G, seed=seed, include_self=True)
        (without, _), = run("pcgrad", G, seed=seed, include_self=False)
        found |= not np.allclose(with_self, without)
    assert found


@pytest.mark.parametrize("case", list(CASES))
def test_graddrop_keeps_one_sign_per_coordinate(case):
    # Chen et al. 2020, Alg. 1: P = ½(1 + Σg/Σ|g|), U ~ U(0, 1), keep g_t where (P > U, g_t > 0) or (P < U, g_t < 0)
    G = CASES[case]
    (d, head), = run("graddrop", G, seed=7)
    torch.manual_seed(7)
    U = torch.rand(G.shape[1], dtype=torch.float64).numpy()
    P = 0.5 * (1 + G.sum(0) / (np.abs(G).sum(0) + 1e-7))
    keep = ((P > U) & (G > 0)) | ((P < U) & (G < 0))
    close(d, (keep * G).sum(0))
    close(head, np.ones(len(G)))


# ---------------------------------------------------------------- IMTL
def imtl_g_closed_form(G):
    """Liu et al. 2021, §3.2: α_{2:T} = g_1 Uᵀ (D Uᵀ)⁻¹ with D_t = g_1 − g_t, U_t = u_1 − u_t; α_1 = 1 − Σα_{2:T}."""
    u = G / np.linalg.norm(G, axis=1, keepdims=True)
    D, U = G[0] - G[1:], u[0] - u[1:]
    rest = G[0] @ U.T @ np.linalg.inv(D @ U.T)
    return np.r_[1 - rest.sum(), rest]


@pytest.mark.parametrize("case", ["conflicting", "norms", "five"])
def test_imtl_g_is_the_papers_closed_form(case):
    G = CASES[case][:, :] if case != "five" else CASES[case]
    if G.shape[0] > G.shape[1]:
        pytest.skip("more tasks than dimensions")
    (d, head), = run("imtl", G)
    alpha = imtl_g_closed_form(G)
    close(d, alpha @ G, rtol=1e-7, atol=1e-10)
    proj = G @ d / np.linalg.norm(G, axis=1)
    close(proj, np.full(len(G), proj[0]), rtol=1e-7)  # equal projection on every unit task gradient
    close(head, np.ones(len(G)))


@pytest.mark.parametrize("variant", ["l", "hybrid"])
def test_imtl_l_and_hybrid_over_four_steps(variant):
    # IMTL-L (§3.1): loss e^s L − s, s by Adam on e^s L − 1; hybrid (§3.3): IMTL-G on the scaled gradients e^s g
    G = CASES["norms"]
    L = np.array([[2.0, 0.1, 1.0], [1.5, 0.1, 0.8], [1.0, 0.2, 0.6], [0.8, 0.3, 0.5]])
    adam = AdamRef(np.zeros(3), lr=1e-2)
    for (d, head), losses in zip(run("imtl", G, L, steps=4, variant=variant), L, strict=True):
        scale = np.exp(adam.x)
        scaled = scale[:, None] * G
        expected = scaled.sum(0) if variant == "l" else imtl_g_closed_form(scaled) @ scaled
        close(d, expected, rtol=1e-5)
        close(head, scale, rtol=1e-6)
        adam.step(np.exp(adam.x) * losses - 1)


# ---------------------------------------------------------------- CAGrad
def cagrad_primal(G, c):
    """Liu et al. 2021, eq. 3: max_d min_i g_i·d subject to ‖d − g_0‖ ≤ c‖g_0‖, solved as a conic program."""
    import cvxpy as cp

    g0 = G.mean(0)
    u, t = cp.Variable(G.shape[1]), cp.Variable()
    r = c * np.linalg.norm(g0)
    problem = cp.Problem(cp.Maximize(t), [G @ g0 + r * (G @ u) >= t, cp.norm(u, 2) <= 1])
    problem.solve(solver=cp.CLARABEL)
    return g0 + r * u.value


@pytest.mark.parametrize("rescale", [0, 1, 2])
@pytest.mark.parametrize("case", list(CASES))
def test_cagrad_solves_the_conflict_averse_problem(case, rescale):
    G, c = CASES[case], 0.4
    (d, head), = run("cagrad", G, c=c, rescale=rescale)
    factor = {0: 1.0, 1: 1 + c**2, 2: 1 + c}[rescale]
    g0, best = G.mean(0), cagrad_primal(G, c)
    d = d * factor
    # feasible (on the ball's surface) and as good as the conic solver's optimum: the optimal d need not be unique
    # where min_i g_i·d is flat (near-parallel gradients), its value is
    np.testing.assert_allclose(np.linalg.norm(d - g0), c * np.linalg.norm(g0), rtol=1e-9)
    assert (G @ d).min() >= (G @ best).min() - 1e-6 * abs((G @ best).min())
    close(head, np.ones(len(G)))


def test_cagrad_two_tasks_by_golden_section():
    G, c = np.array([[1.0, 0.0], [-1.0, 1.0]]), 0.4
    g0 = G.mean(0)
    r = c * np.linalg.norm(g0)

    def f(a):
        gw = a * G[0] + (1 - a) * G[1]
        return gw @ g0 + r * np.linalg.norm(gw)

    lo, hi, phi = 0.0, 1.0, (5**0.5 - 1) / 2
    for _ in range(200):
        m1, m2 = hi - phi * (hi - lo), lo + phi * (hi - lo)
        lo, hi = (lo, m2) if f(m1) < f(m2) else (m1, hi)
    gw = lo * G[0] + (1 - lo) * G[1]
    (d, _), = run("cagrad", G, c=c, rescale=0)
    close(d, g0 + r / np.linalg.norm(gw) * gw, rtol=1e-6)


def test_cagrad_is_not_zero_for_small_gradients():
    # torchjd's Gramian guard zeroed the update when ‖J‖²_F < 1e-4; CAGrad's direction does not depend on scale
    G = CASES["conflicting"]
    (d, _), = run("cagrad", G)
    (small, _), = run("cagrad", 1e-4 * G)
    close(small, 1e-4 * d, rtol=1e-6)
    assert np.linalg.norm(small) > 0


def test_cagrad_with_c_zero_is_the_mean():
    (d, _), = run("cagrad", CASES["norms"], c=0.0)
    close(d, CASES["norms"].mean(0))


# ---------------------------------------------------------------- Aligned-MTL, as in the authors' code
@pytest.mark.parametrize("case", list(CASES))
def test_aligned_mtl_sums_the_aligned_gradients(case):
    # Senushkin et al. 2023: J = U S Wᵀ, aligned gradients σ_min W Uᵀ (orthogonal, equal norms), d = their sum
    # over the singular values above the authors' cut σ² > σ²_max · T · eps(float32)
    G = CASES[case]
    U, S, Wt = np.linalg.svd(G, full_matrices=False)
    keep = S**2 > S.max() ** 2 * len(G) * EPS32
    U, S, Wt = U[:, keep], S[keep], Wt[keep]
    aligned = S.min() * (U @ Wt)                   # (T, n): row t is task t's aligned gradient
    (d, head), = run("alignedmtl", G)
    close(d, aligned.sum(0), rtol=1e-6, atol=1e-9)
    close(head, np.ones(len(G)))


def test_aligned_mtl_rank_cut_does_not_depend_on_the_gramian_dtype():
    G = np.array([[1.0, 0.0], [1.0, 1e-5]])  # near-parallel: σ²_min/σ²_max ≈ 1.2e-11, below the float32 cut
    (d64, _), = run("alignedmtl", G)
    d32 = build_weighting("alignedmtl", 2)(torch.ones(2), torch.tensor(G, dtype=torch.float32)).shared_grad.numpy()
    close(d32, d64, rtol=1e-5)
    # rank 1: the update is ‖g‖·û·(1ᵀu) with u the leading left singular vector, not shrunk by σ_min / σ_max
    assert np.linalg.norm(d64) > 1.0


# ---------------------------------------------------------------- torchjd's GradVac, Nash-MTL, FairGrad
def test_gradvac_over_four_steps_for_two_tasks():
    # Wang et al. 2021, eq. 7-8: if φ_ij < φ̂_ij, g_i ← g_i + ‖g_i‖(φ̂√(1−φ²) − φ√(1−φ̂²))/(‖g_j‖√(1−φ̂²)) g_j;
    # φ̂_ij ← (1−β)φ̂_ij + βφ_ij, φ̂ = 0 at the start, β = 0.5
    Gs = [np.array([[1.0, 0.0], [-1.0, 1.0]]), np.array([[1.0, 0.2], [-0.5, 1.0]]), np.array([[1.0, 0.0], [0.5, 1.0]]),
          np.array([[1.0, -0.5], [-1.0, 0.2]])]
    w = build_weighting("gradvac", 2)
    phi_hat = np.zeros((2, 2))
    for G in Gs:
        d, head, _ = engine_step(w, G)
        expected = np.zeros(2)
        for i, j in ((0, 1), (1, 0)):
            g = G[i].copy()
            phi = g @ G[j] / (np.linalg.norm(g) * np.linalg.norm(G[j]) + 1e-8)
            if phi < phi_hat[i, j]:
                g = g + np.linalg.norm(g) * (phi_hat[i, j] * np.sqrt(1 - phi**2) - phi * np.sqrt(1 - phi_hat[i, j] ** 2)) \
                    / (np.linalg.norm(G[j]) * np.sqrt(1 - phi_hat[i, j] ** 2) + 1e-8) * G[j]
            phi_hat[i, j] = 0.5 * phi_hat[i, j] + 0.5 * phi
            expected += g
        close(d, expected, rtol=1e-7)
        close(head.diagonal(), [1.0, 1.0])


@pytest.mark.parametrize("case", ["conflicting", "norms"])
def test_nash_mtl_solves_the_bargaining_condition(case):
    # Navon et al. 2022, eq. 4: Gα = 1/α up to the scale of G their code normalises by, so α_t (Gα)_t is the same
    # for every task; then ‖Jᵀα‖ is clipped to max_norm
    G = CASES[case]
    (d, head), = run("nashmtl", G, max_norm=0.0)
    alpha = np.linalg.lstsq(G.T, d, rcond=None)[0]
    product = alpha * (G @ G.T @ alpha)   # equal for every task (the constant is the solver's normalisation)
    np.testing.assert_allclose(product, np.full(len(G), product.mean()), rtol=2e-3)
    close(head, np.ones(len(G)))
    (clipped, _), = run("nashmtl", G)  # max_norm 1 (the authors' default)
    assert np.linalg.norm(clipped) <= 1.0 + 1e-9


@pytest.mark.parametrize("case", ["conflicting", "norms"])
def test_fairgrad_solves_its_fairness_condition(case):
    # Ban & Ji 2024, eq. 7 with α = 1: (G w)_t = w_t^{−1/α}
    G = CASES[case]
    (d, head), = run("fairgrad", G)
    w = np.linalg.lstsq(G.T, d, rcond=None)[0]
    np.testing.assert_allclose(w * (G @ G.T @ w), np.ones(len(G)), rtol=1e-4)
    close(head, np.ones(len(G)))


# ---------------------------------------------------------------- every method: heads and scale
GRADIENT_AGGREGATORS = ("mgda", "pcgrad", "gradvac", "graddrop", "imtl", "cagrad", "nashmtl", "alignedmtl", "fairgrad")


@pytest.mark.parametrize("name", GRADIENT_AGGREGATORS)
def test_heads_get_their_own_loss_or_the_task_weight(name):
    G, H = CASES["conflicting"], np.arange(6.0).reshape(3, 2) + 1
    torch.manual_seed(0)
    _, own, _ = engine_step(build_weighting(name, 3), G, H=H)
    close(own, H)
    torch.manual_seed(0)
    _, weighted, stats = engine_step(build_weighting(name, 3), G, H=H, heads="weighted")
    close(weighted, stats["weights"].numpy()[:, None] * H, rtol=1e-9)


# scale-equivariant: d(kJ) = k d(J) for every gradient scale k; scale-invariant by design: d(kJ) = d(J)
EQUIVARIANT = ("ew", "uw", "dwa", "rlw", "famo", "single", "gradnorm", "dbmtl", "mgda", "pcgrad", "gradvac",
               "graddrop", "imtl", "cagrad", "alignedmtl")
INVARIANT = ("nashmtl", "fairgrad")  # Gα = 1/α: α ∝ 1/k, so Jᵀα does not change with k


def test_every_shipped_weighting_is_classified():
    assert sorted(EQUIVARIANT + INVARIANT) == sorted(NAMES)
    assert len(NAMES) == 17  # the sixteen methods and the single-task baseline


@pytest.mark.parametrize("k", [1e-3, 1e3])
@pytest.mark.parametrize("name", EQUIVARIANT + INVARIANT)
def test_scale_of_the_gradients(name, k):
    G = CASES["norms"]
    L = np.array([[2.0, 0.1, 1.0], [1.8, 0.1, 0.9], [1.5, 0.2, 0.8]])
    ref = run(name, G, L, steps=3, seed=1)
    scaled = run(name, k * G, L, steps=3, seed=1)
    power = 1.0 if name in EQUIVARIANT else 0.0
    # tolerances: Nash-MTL's and FairGrad's iterative solvers (1e-3); GradNorm's and DB-MTL's ε = 1e-8 inside Adam
    # and in α = max‖b‖/(‖b_t‖ + ε) (the authors'), which is not negligible next to gradients of 1e-3
    rtol = {"nashmtl": 2e-3, "fairgrad": 2e-3, "gradnorm": 1e-4, "dbmtl": 2e-4}.get(name, 1e-6)
    for (d, _), (dk, _) in zip(ref, scaled, strict=True):
        np.testing.assert_allclose(dk, k**power * d, rtol=rtol, atol=rtol * k**power * np.abs(d).max())
