"""Full-state alignment baselines for transfer: orthogonal Procrustes with a translation, in closed form.

Ridge (`sklearn.linear_model.Ridge`) and CCA (`sklearn.cross_decomposition.CCA`, its `predict`) come from
scikit-learn; Procrustes is here because scikit-learn has none and SciPy's needs equal widths. Every
alignment is a regressor fitted on (h_B, target) of unlabelled paired inputs only.
"""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, RegressorMixin


class ProcrustesAlignment(RegressorMixin, BaseEstimator):
    """G(x) = M(x − μ_x) + μ_y with M of orthonormal rows or columns minimising ‖(X−μ_x)Mᵀ − (Y−μ_y)‖_F:
    M = UVᵀ from the thin SVD UΣVᵀ = (Y−μ_y)ᵀ(X−μ_x) (Schönemann 1966; semi-orthogonal when widths differ)."""

    def fit(self, x, y):
        x, y = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
        self.x_mean_, self.y_mean_ = x.mean(0), y.mean(0)
        u, _, vt = np.linalg.svd((y - self.y_mean_).T @ (x - self.x_mean_), full_matrices=False)
        self.coef_ = u @ vt                                   # [out, in]
        return self

    def predict(self, x):
        return (np.asarray(x, dtype=np.float64) - self.x_mean_) @ self.coef_.T + self.y_mean_
