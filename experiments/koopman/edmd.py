"""Extended DMD (Williams, Kevrekidis & Rowley 2015, Eq. 14), the non-learned baseline: on a fixed library
Θ, K = argmin ‖Θ(S')ᵀ − KΘ(S)ᵀ‖ by least squares over snapshot pairs, and the model's input features read
back linearly from Θ. k-step predictions are features ≈ Θ(s_0) K^m B, scored like the deep model's pred_rel.
(pykoopman would pin an older scikit-learn and matplotlib in this environment, so EDMD is these few lines.)
"""

from __future__ import annotations

import numpy as np


class EDMD:
    def fit(self, lib_now: np.ndarray, lib_next: np.ndarray, features_now: np.ndarray) -> EDMD:
        self.K = np.linalg.lstsq(lib_now, lib_next, rcond=None)[0]          # Θ(s') ≈ Θ(s) K
        self.B = np.linalg.lstsq(lib_now, features_now, rcond=None)[0]      # features ≈ Θ B
        return self

    def predict(self, lib0: np.ndarray, steps: int) -> np.ndarray:
        """(n, L) dictionary at the start → (n, steps, n_features) predicted features for m = 1..steps."""
        out, theta = [], lib0
        for _ in range(steps):
            theta = theta @ self.K
            out.append(theta @ self.B)
        return np.stack(out, axis=1)


def relative_prediction_error(pred: np.ndarray, target: np.ndarray) -> float:
    """Σ‖x_m − x̂_m‖² / Σ‖x_m − x̄‖² over windows and steps (the task's pred_rel, over the whole split)."""
    return float(((target - pred) ** 2).sum() / ((target - target.mean((0, 1))) ** 2).sum())
