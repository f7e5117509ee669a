"""The symbolic readout's parts (Deep-Koopman-KANDy abstract; issue 18): candidate libraries chosen after training,
STLSQ sparse regression (Brunton et al. 2016, via pysindy), the threshold chosen on held-out states,
and the dictionary scores (Jaccard, recall, closure) the abstract reports.

Latents are defined up to an invertible linear map, so they are whitened before regression and the
dictionary is the union of active library terms over all whitened latents: that union is the support of
the latent span, unchanged by an invertible mixing of the latents.
"""

from __future__ import annotations

import itertools
import warnings

import numpy as np


def polynomial_library(states: np.ndarray, names: list[str], degree: int) -> tuple[np.ndarray, list[str], list[int]]:
    """All monomials of the raw (uncentred) coordinates up to `degree`, constant first: (n, L), names, degrees."""
    columns, labels, orders = [np.ones(len(states))], ["1"], [0]
    for deg in range(1, degree + 1):
        for combo in itertools.combinations_with_replacement(range(states.shape[1]), deg):
            columns.append(np.prod(states[:, combo], axis=1))
            labels.append("".join(names[i] if combo.count(i) == 1 else f"{names[i]}^{combo.count(i)}"
                                  for i in sorted(set(combo))))
            orders.append(deg)
    return np.stack(columns, axis=1), labels, orders


def fourier_library(angles: np.ndarray, names: list[str], order: int) -> tuple[np.ndarray, list[str], list[int]]:
    """cos and sin of k·angles for integer k with 1 ≤ |k|_1 ≤ order (one of ±k), constant first."""
    columns, labels, orders = [np.ones(len(angles))], ["1"], [0]
    d = angles.shape[1]
    for k in itertools.product(range(-order, order + 1), repeat=d):
        first = next((c for c in k if c != 0), 0)
        if first <= 0 or sum(map(abs, k)) > order:
            continue  # keep one of k and -k, drop k = 0
        phase = angles @ np.asarray(k, dtype=float)
        arg = "+".join(f"{c}{n}" for c, n in zip(k, names, strict=True) if c != 0).replace("+-", "-")
        columns += [np.cos(phase), np.sin(phase)]
        labels += [f"cos({arg})", f"sin({arg})"]
        orders += [sum(map(abs, k))] * 2
    return np.stack(columns, axis=1), labels, orders


def whiten(train: np.ndarray, *others: np.ndarray, rank_tol: float = 1e-8) -> list[np.ndarray]:
    """Centre on the train mean and map to identity covariance (directions below rank_tol·λ_max dropped)."""
    mean = train.mean(0)
    eigval, eigvec = np.linalg.eigh(np.cov(train - mean, rowvar=False).reshape(train.shape[1], -1))
    keep = eigval > rank_tol * eigval.max()
    w = eigvec[:, keep] / np.sqrt(eigval[keep])
    return [(a - mean) @ w for a in (train, *others)]


def stlsq(library: np.ndarray, targets: np.ndarray, threshold: float, alpha: float = 0.05, max_iter: int = 20) -> np.ndarray:
    """Sequentially thresholded least squares (pysindy.optimizers.STLSQ): (L, k) coefficients."""
    try:
        from pysindy.optimizers import STLSQ
    except ImportError as err:
        raise ImportError("the Koopman readout needs pysindy; run pip install -e '.[koopman]'") from err
    opt = STLSQ(threshold=threshold, alpha=alpha, max_iter=max_iter)
    with warnings.catch_warnings():  # a threshold above every coefficient is a valid (empty) candidate
        warnings.simplefilter("ignore", UserWarning)
        opt.fit(library, targets)
    return np.asarray(opt.coef_).T


def heldout_error(library: np.ndarray, targets: np.ndarray, coef: np.ndarray) -> float:
    """Mean over targets of ‖y − Θξ‖² / ‖y − ȳ‖² (1 − R²) on held-out states."""
    resid = ((targets - library @ coef) ** 2).sum(0)
    spread = ((targets - targets.mean(0)) ** 2).sum(0)
    return float(np.mean(resid / np.maximum(spread, 1e-300)))


def select_threshold(train: tuple[np.ndarray, np.ndarray], heldout: tuple[np.ndarray, np.ndarray],
                     thresholds: list[float], tolerance: float, alpha: float = 0.05) -> tuple[float, np.ndarray, float]:
    """Fit STLSQ at every threshold on `train`; keep the largest threshold whose held-out error is within
    `tolerance` of the best. The target dictionary is never looked at. Returns (threshold, coef, error)."""
    fits = []
    for t in sorted(thresholds):
        coef = stlsq(*train, threshold=t, alpha=alpha)
        fits.append((t, coef, heldout_error(*heldout, coef)))
    best = min(err for _, _, err in fits)
    return [fit for fit in fits if fit[2] <= best + tolerance][-1]


def active_terms(coef: np.ndarray, names: list[str]) -> list[str]:
    """The union over targets of library terms with a nonzero coefficient, the constant left out."""
    return [n for n, row in zip(names, coef, strict=True) if n != "1" and np.any(row != 0)]


def jaccard_recall(found: list[str], target: list[str]) -> tuple[float, float]:
    found_set, target_set = set(found), set(target)
    union = found_set | target_set
    jaccard = len(found_set & target_set) / len(union) if union else 1.0
    recall = len(found_set & target_set) / len(target_set) if target_set else 1.0
    return jaccard, recall


def closure_residual(lib_now: np.ndarray, lib_next: np.ndarray, test_now: np.ndarray, test_next: np.ndarray) -> float:
    """How far span(Θ_D) is from invariant: fit Θ(s') ≈ Θ(s)K by least squares on train pairs, and report
    ‖Θ(s') − Θ(s)K‖² / ‖Θ(s') − Θ(s)‖² on test pairs (0: closed; about 1: no better than K = I)."""
    K = np.linalg.lstsq(lib_now, lib_next, rcond=None)[0]
    resid = ((test_next - test_now @ K) ** 2).sum()
    return float(resid / max(((test_next - test_now) ** 2).sum(), 1e-300))
