"""Plain fingerprint baselines: random forest and gradient boosting on ECFP (+ one-hot target and E3).

The features are the same ECFP bits the neural models read; `with_tuple=False` drops the one-hot
target / E3 columns (the molecule-only forest). Hyper-parameters are fixed library-style defaults
(no tuning on test); the models train on the same train rows as the neural ones (validation rows
are held out for them too, so every model sees the same labels).
"""

from __future__ import annotations

import numpy as np
from sklearn.ensemble import HistGradientBoostingClassifier, RandomForestClassifier
from sklearn.feature_selection import VarianceThreshold
from sklearn.pipeline import make_pipeline

from .data import Protac8K


def fingerprint_features(data: Protac8K, tuples: np.ndarray, with_tuple: bool = True) -> np.ndarray:
    """[n, bits (+ n_targets + n_e3s)] uint8: ECFP bits, then one-hot target and one-hot E3."""
    fp = data.fingerprints[tuples[:, 0]]
    if not with_tuple:
        return fp
    target = np.eye(len(data.targets), dtype=np.uint8)[tuples[:, 1]]
    e3 = np.eye(len(data.e3s), dtype=np.uint8)[tuples[:, 2]]
    return np.concatenate([fp, target, e3], axis=1)


def make_forest(kind: str, seed: int, n_estimators: int = 300):
    """'rf' = RandomForestClassifier, 'gbm' = HistGradientBoostingClassifier (sklearn).

    `n_estimators` trees for the forest, boosting iterations for 'gbm'. The booster first drops
    columns set in under 1 % of the training rows (histograms are built for every column) and each
    split looks at a random 20 % of the rest, which keeps it affordable on one CPU thread.
    """
    if kind == "rf":
        return RandomForestClassifier(n_estimators=n_estimators, max_features="sqrt", n_jobs=1, random_state=seed)
    if kind == "gbm":
        booster = HistGradientBoostingClassifier(max_iter=n_estimators, learning_rate=0.05, max_leaf_nodes=15,
                                                 max_features=0.2, l2_regularization=1.0, early_stopping=False,
                                                 random_state=seed)
        return make_pipeline(VarianceThreshold(0.01 * 0.99), booster)
    raise ValueError(f"unknown forest kind '{kind}' (use 'rf' or 'gbm')")


def fit_predict_forest(kind: str, data: Protac8K, train: tuple[np.ndarray, np.ndarray], tests: list[np.ndarray],
                       seed: int = 0, with_tuple: bool = True, n_estimators: int = 300) -> list[np.ndarray]:
    """Fit on `train` = (tuples, labels); return the positive-class probability for each array in `tests`."""
    model = make_forest(kind, seed, n_estimators)
    model.fit(fingerprint_features(data, train[0], with_tuple), train[1])
    return [model.predict_proba(fingerprint_features(data, t, with_tuple))[:, 1] for t in tests]
