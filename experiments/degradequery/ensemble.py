"""A stack of the fingerprint models (`model=stack_tuple`): base estimators by name, combined by a final estimator
fitted on their out-of-fold probabilities (scikit-learn's StackingClassifier), so the weights are chosen on
cross-validation of the training rows only."""

from __future__ import annotations

from sklearn.ensemble import StackingClassifier
from sklearn.model_selection import StratifiedKFold


def stacking_classifier(estimators: dict, final_estimator, cv_folds: int = 5, seed: int = 0, **params) -> StackingClassifier:
    """StackingClassifier over `estimators` ({name: estimator}, composed from config), the final estimator fitted
    on `cv_folds` stratified, seeded out-of-fold positive-class probabilities of each."""
    cv = StratifiedKFold(n_splits=cv_folds, shuffle=True, random_state=seed)
    return StackingClassifier(list(estimators.items()), final_estimator=final_estimator, cv=cv,
                              stack_method="predict_proba", **params)
