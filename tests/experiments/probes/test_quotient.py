"""The quotient, the alignments and the monitor-transfer estimator on made-up cases where the answers are known."""

import numpy as np
import pytest
import torch
from scipy.linalg import orthogonal_procrustes
from sklearn.cross_decomposition import CCA
from sklearn.linear_model import Ridge, RidgeCV

from experiments.probes.alignment import ProcrustesAlignment
from experiments.probes.monitor_metrics import MonitorAUROCs
from experiments.probes.monitor_transfer import MonitorTransfer
from experiments.probes.quotient import visible_basis
from experiments.probes.transfer import PairedStates
from reprolab.cli.errors import ConfigError


def test_visible_basis_spans_the_bank_and_drops_dependent_probes():
    bank = np.array([[1.0, 2.0, 0.0], [0.0, 0.0, 0.0], [1.0, 2.0, 3.0]])   # columns: w1, 2·w1, w3
    basis = visible_basis(bank)
    assert basis.shape == (3, 2)
    np.testing.assert_allclose(basis.T @ basis, np.eye(2), atol=1e-12)
    projector = basis @ basis.T
    np.testing.assert_allclose(projector @ bank, bank, atol=1e-12)                 # the bank is inside
    np.testing.assert_allclose(projector @ [0.0, 1.0, 0.0], np.zeros(3), atol=1e-12)   # e2 is in K(V)


def test_procrustes_matches_scipy_and_recovers_a_rotation_with_translation():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(50, 3))
    rotation, _ = np.linalg.qr(rng.normal(size=(3, 3)))
    y = x @ rotation.T + [1.0, -2.0, 0.5]
    fit = ProcrustesAlignment().fit(x, y)
    np.testing.assert_allclose(fit.coef_, rotation, atol=1e-10)
    np.testing.assert_allclose(fit.predict(x), y, atol=1e-10)
    reference, _ = orthogonal_procrustes(x - x.mean(0), y - y.mean(0))            # SciPy: min ‖XR − Y‖, R = Mᵀ
    np.testing.assert_allclose(fit.coef_, reference.T, atol=1e-10)


def test_procrustes_between_different_widths_has_orthonormal_rows():
    rng = np.random.default_rng(1)
    fit = ProcrustesAlignment().fit(rng.normal(size=(40, 5)), rng.normal(size=(40, 2)))
    np.testing.assert_allclose(fit.coef_ @ fit.coef_.T, np.eye(2), atol=1e-10)


def states(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return PairedStates()({"a": torch.as_tensor(a), "b": torch.as_tensor(b)})


def toy_sources(n=600, seed=0):
    """A = (u, v) + noise, u = +1/−1 for digits 0/1, v = +1/−1 for digits 2/3 (0 otherwise); B = an invertible
    linear mix of A. The bank {0} sees u only, so the monitor {0} is covered and {2} (reading v) is not."""
    rng = np.random.default_rng(seed)
    digits = rng.integers(0, 4, n)
    code = np.array([[1.0, 0.0], [-1.0, 0.0], [0.0, 1.0], [0.0, -1.0]])
    a = code[digits] + 0.3 * rng.normal(size=(n, 2))
    b = a @ np.array([[2.0, 1.0], [0.5, -1.0]]).T
    return a, b, digits


def transfer(**kw):
    args = dict(alignment=Ridge(alpha=1e-6), bank_digits=[0], covered_monitors=[[0]],
                uncovered_monitors=[[2]])
    return MonitorTransfer(**(args | kw))


def test_quotient_transfer_keeps_covered_monitors_and_loses_uncovered_ones():
    a, b, digits = toy_sources()
    b_paired = b.copy()
    b_paired[50:] = np.nan                                                        # 50 paired inputs
    test_a, test_b, test_digits = toy_sources(seed=1)
    fit = transfer().fit(states(a, b_paired), digits)
    assert fit.basis_.shape == (2, 1) and abs(fit.basis_[0, 0]) > 0.9             # the quotient ≈ the first axis
    scores = fit.predict_proba(states(test_a, test_b))
    source = transfer(read="source", target="full").fit(states(a, b_paired), digits).predict_proba(states(test_a, test_b))
    np.testing.assert_allclose(scores[:, 0], source[:, 0], atol=1e-3)             # covered: as good as on A
    metrics = MonitorAUROCs("test/", [[0]], [[2]])
    metrics.update(torch.as_tensor(scores), torch.as_tensor(test_digits))
    result = {k: v.item() for k, v in metrics.compute().items()}
    assert result["test/auroc_covered"] > 0.95 and result["test/auroc_uncovered"] < 0.65


def test_alignment_never_sees_labels_nor_unpaired_b_nor_test_inputs_of_a():
    a, b, digits = toy_sources()
    b_paired = b.copy()
    b_paired[50:] = np.nan
    test_a, test_b, _ = toy_sources(seed=1)
    fit = transfer(target="full").fit(states(a, b_paired), digits)
    shuffled = digits.copy()
    shuffled[:50] = np.random.default_rng(3).permutation(shuffled[:50])          # relabel only the paired rows
    moved = transfer(target="full").fit(states(a, b_paired), shuffled)
    np.testing.assert_allclose(fit.alignment_.coef_, moved.alignment_.coef_)      # the map is label-free
    blind = states(np.full_like(test_a, np.nan), test_b)                            # A is not read at test time
    np.testing.assert_allclose(fit.predict_proba(blind), fit.predict_proba(states(test_a, test_b)))


def wide_sources(n=300, pairs=12, seed=0):
    """A = (u, 20 noise coordinates B never sees), u = ±1 for digits 0/1; B = (u + noise, 39 noise coordinates):
    B is 40 wide, far above the 12 paired inputs, and only A's first coordinate is predictable from B."""
    rng = np.random.default_rng(seed)
    digits = rng.integers(0, 4, n)
    u = np.where(digits == 0, 1.0, np.where(digits == 1, -1.0, 0.0))
    a = np.column_stack([u + 0.1 * rng.normal(size=n), rng.normal(size=(n, 20))])
    b = np.column_stack([u + 0.1 * rng.normal(size=n), rng.normal(size=(n, 39))])
    b_paired = b.copy()
    b_paired[pairs:] = np.nan
    return states(a, b_paired), states(a, b), digits


def covered_scores(alignment, target, seed=0):
    train, test, digits = wide_sources(seed=seed)
    fit = transfer(alignment=alignment, target=target, uncovered_monitors=[[1]]).fit(train, digits)
    return fit, fit.predict_proba(test)[:, 0]


def test_fixed_alpha_ridge_gives_quotient_and_full_the_same_covered_monitor_at_any_width():
    """Ridge's prediction is linear in its targets (Ŷ = S·Y, S fixed by B alone), so projecting the full-state
    prediction on span(V) is the quotient prediction, however wide B is against the pairs (README)."""
    for alpha in (1e-3, 1.0, 100.0):
        _, quotient = covered_scores(Ridge(alpha=alpha), "quotient")
        _, full = covered_scores(Ridge(alpha=alpha), "full")
        np.testing.assert_allclose(quotient, full, rtol=0, atol=1e-10)


def test_alpha_chosen_from_the_pairs_separates_quotient_from_full():
    """Leave-one-out picks one alpha for all outputs. For the quotient (≈ u, predictable from B) it is small; for A's
    full state (20 of 21 coordinates noise B never saw) it is the grid's largest, which flattens the covered monitor."""
    grid = [1e-2, 1.0, 1e2, 1e4]
    q_fit, quotient = covered_scores(RidgeCV(alphas=grid), "quotient")
    f_fit, full = covered_scores(RidgeCV(alphas=grid), "full")
    assert q_fit.alignment_.alpha_ < 1e4 and f_fit.alignment_.alpha_ == 1e4
    assert np.abs(quotient - full).max() > 0.01
    _, test, digits = wide_sources()
    positive = digits == 0
    separation = [s[positive].mean() - s[~positive].mean() for s in (quotient, full)]
    assert separation[0] > separation[1]                                          # here the quotient reads digit 0 better


def test_oracle_and_cca_and_bad_values():
    a, b, digits = toy_sources()
    oracle = transfer(read="oracle").fit(states(a, b), digits)
    assert oracle.predict_proba(states(a, b)).shape == (600, 2)
    cca = transfer(target="full", alignment=CCA(n_components=1, scale=False)).fit(states(a, b), digits)
    assert cca.source_estimate(states(a, b)).shape == (600, 2)
    b[5] = np.nan
    with pytest.raises(ConfigError, match="set data.n_pairs=null"):
        transfer(read="oracle").fit(states(a, b), digits)
    with pytest.raises(ConfigError, match="model.read='probe'"):
        transfer(read="probe").fit(states(a, b), digits)


def test_monitor_auroc_is_the_mean_over_monitors():
    metrics = MonitorAUROCs("val/", [[0], [1]], [[2]])
    labels = torch.tensor([0, 1, 2, 0])
    scores = torch.tensor([[0.9, 0.1, 0.0], [0.1, 0.2, 0.0], [0.2, 0.3, 1.0], [0.8, 0.4, 0.0]])
    metrics.update(scores, labels)                       # monitor {0}: AUROC 1; {1}: 1/3 (0.2 beats only 0.1); {2}: 1
    result = {k: v.item() for k, v in metrics.compute().items()}
    assert result["val/auroc_covered"] == pytest.approx((1 + 1 / 3) / 2)
    assert result["val/auroc_uncovered"] == pytest.approx(1.0)
