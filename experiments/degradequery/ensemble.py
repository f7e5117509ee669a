"""A stack of the fingerprint models (`model=stack_tuple`): base estimators by name, combined by a final estimator
fitted on their out-of-fold probabilities (scikit-learn's StackingClassifier), so the weights are chosen on
cross-validation of the training rows only."""

from __future__ import annotations

import warnings

import numpy as np
from sklearn.ensemble import StackingClassifier
from sklearn.model_selection import StratifiedKFold


def named(**estimators) -> list[tuple[str, object]]:
    """[(name, estimator), ...] in the order given: the `estimators` of a scikit-learn ensemble, composed from config
    as a mapping (each base estimator a model option placed under its name)."""
    return list(estimators.items())


class FoldStack(StackingClassifier):
    """StackingClassifier over `estimators` ([(name, estimator)], `named`) whose final estimator is fitted
    on `cv_folds` stratified, seeded out-of-fold positive-class probabilities of each. The folds shrink to the rarer
    class's row count; below 2 rows of a class (a smoke test's few rows) it stacks in-sample probabilities, warning."""

    def __init__(self, estimators, final_estimator=None, cv_folds: int = 5, seed: int = 0, n_jobs=None):
        super().__init__(estimators, final_estimator=final_estimator,
                         stack_method="predict_proba", n_jobs=n_jobs)
        self.cv_folds, self.seed = cv_folds, seed

    def fit(self, X, y, **fit_params):
        rarest = int(np.unique(np.asarray(y), return_counts=True)[1].min())
        if rarest >= 2:
            self.cv = StratifiedKFold(n_splits=min(self.cv_folds, rarest), shuffle=True, random_state=self.seed)
        else:
            warnings.warn(f"FoldStack: a class has {rarest} training row(s); stacking in-sample probabilities", stacklevel=2)
            self.cv = [(np.arange(len(y)), np.arange(len(y)))]
        return super().fit(X, y, **fit_params)
