"""Selection without touching test: cross-validated predictions on the training rows, and a decision threshold.

`cross_validated_proba` gives each training row the positive-class probability of an estimator fitted on the
other folds (stratified, shuffled with the run's seed), so an estimator fitted on ALL training rows (no validation
carve) still has held-out scores to be compared and thresholded on. `accuracy_threshold` picks the probability cut
that maximises accuracy on such held-out scores (validation or CV), never on test; `threshold_report` scores a
prediction set at 0.5, at that cut, and at the oracle cut (the best on the scored set itself: reported only, to say
what an accuracy target would need, never used for a choice).
"""

from __future__ import annotations

import numpy as np
from sklearn.base import clone
from sklearn.metrics import f1_score
from sklearn.model_selection import StratifiedKFold, cross_val_predict


def cross_validated_proba(estimator, features: np.ndarray, labels: np.ndarray, folds: int, seed: int) -> np.ndarray:
    """[n] out-of-fold P(label = 1) from `folds` stratified, seeded folds (each fold's model never saw its rows)."""
    cv = StratifiedKFold(n_splits=folds, shuffle=True, random_state=seed)
    return cross_val_predict(clone(estimator), features, labels, cv=cv, method="predict_proba")[:, 1]


def accuracy_threshold(probs: np.ndarray, labels: np.ndarray) -> float:
    """The cut t maximising accuracy of `probs >= t`: the midpoint between two adjacent distinct scores (ties:
    the cut closest to 0.5), so the rule is the same on scores it was not chosen on."""
    probs, labels = np.asarray(probs, dtype=np.float64), np.asarray(labels)
    values = np.unique(probs)
    cuts = np.concatenate([[values[0] - 1e-6], (values[:-1] + values[1:]) / 2, [values[-1] + 1e-6]])
    accuracy = np.array([np.mean((probs >= c) == labels) for c in cuts])
    best = np.flatnonzero(accuracy == accuracy.max())
    return float(cuts[best[np.argmin(np.abs(cuts[best] - 0.5))]])


def threshold_report(probs: np.ndarray, labels: np.ndarray, threshold: float | None, prefix: str) -> dict[str, float]:
    """`<prefix>accuracy_at_threshold` and `<prefix>f1_macro_at_threshold` at `threshold` (chosen elsewhere; skipped
    when None), and `<prefix>oracle_accuracy` / `<prefix>oracle_threshold` (the best cut on these very scores)."""
    probs, labels = np.asarray(probs, dtype=np.float64), np.asarray(labels)
    out = {}
    if threshold is not None:
        pred = (probs >= threshold).astype(int)
        out.update({f"{prefix}accuracy_at_threshold": float(np.mean(pred == labels)),
                    f"{prefix}f1_macro_at_threshold": float(f1_score(labels, pred, average="macro", labels=[0, 1]))})
    oracle = accuracy_threshold(probs, labels)
    out.update({f"{prefix}oracle_accuracy": float(np.mean((probs >= oracle) == labels)), f"{prefix}oracle_threshold": oracle})
    return out
