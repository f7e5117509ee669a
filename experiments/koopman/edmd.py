"""Extended DMD (Williams, Kevrekidis & Rowley 2015, Eq. 14), the non-learned baseline: on a fixed library
Θ, K = argmin ‖Θ(S')ᵀ − KΘ(S)ᵀ‖ by least squares over snapshot pairs, and the model's input features read
back linearly from Θ (features ≈ ΘB). Two k-step predictions:
- linear propagation of the lift, features ≈ Θ(s_0) K^m B (the Koopman reading, as the deep model predicts);
- re-lifted: decode the state after every step and lift it again, features_m = f_m, Θ_m = lift(f_m),
  f_{m+1} = Θ_m K B (`relift`), i.e. EDMD used as a one-step map of the state. Where Θ holds the true
  one-step map's terms this is the stronger baseline a reader would use.
`EDMDDynamics` is EDMD on the polynomial library of the raw coordinates as an arm through `reprolab-train`
(`model=koopman_edmd`, `model.relift`), scored by the readout's `koopman/pred_rel` like the deep model.
(pykoopman would pin an older scikit-learn and matplotlib in this environment, so EDMD is these few lines.)
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import torch

from experiments.koopman.closed_form import ClosedFormDynamics, frozen


class EDMD:
    def __init__(self, K: np.ndarray | None = None, B: np.ndarray | None = None):
        self.K, self.B = K, B

    def fit(self, lib_now: np.ndarray, lib_next: np.ndarray, features_now: np.ndarray) -> EDMD:
        self.K = np.linalg.lstsq(lib_now, lib_next, rcond=None)[0]          # Θ(s') ≈ Θ(s) K
        self.B = np.linalg.lstsq(lib_now, features_now, rcond=None)[0]      # features ≈ Θ B
        return self

    def predict(self, lib0: np.ndarray, steps: int, relift: Callable[[np.ndarray], np.ndarray] | None = None) -> np.ndarray:
        """(n, L) dictionary at the start → (n, steps, n_features) predicted features for m = 1..steps.
        `relift` (features → Θ) re-lifts the decoded features after every step; None propagates Θ linearly."""
        out, theta = [], lib0
        for _ in range(steps):
            theta = theta @ self.K
            out.append(theta @ self.B)
            if relift is not None:
                theta = relift(out[-1])
        return np.stack(out, axis=1)


def relative_prediction_error(pred: np.ndarray, target: np.ndarray) -> float:
    """Σ‖x_m − x̂_m‖² / Σ‖x_m − x̄‖² over windows and steps (the task's pred_rel, over the whole split)."""
    return float(((target - pred) ** 2).sum() / ((target - target.mean((0, 1))) ** 2).sum())


class EDMDDynamics(ClosedFormDynamics):
    """EDMD on the monomials of the raw coordinates up to `degree` (`model.degree`, the readout's library), fitted
    on the training orbits' snapshot pairs; `relift` true: the re-lifted prediction, false: linear propagation."""

    def __init__(self, state_dim: int, variables: list[str], degree: int = 2, relift: bool = True):
        super().__init__(state_dim, variables, degree)
        self.relift = relift
        self.K, self.B = frozen(len(self.names), len(self.names)), frozen(len(self.names), state_dim)

    def fit_states(self, datamodule) -> None:
        now, nxt = datamodule.pairs("train")
        edmd = EDMD().fit(self.lift(now), self.lift(nxt), now)
        self.K.copy_(torch.from_numpy(edmd.K))
        self.B.copy_(torch.from_numpy(edmd.B))

    def rollout(self, states: np.ndarray, steps: int) -> np.ndarray:
        return EDMD(self.K.cpu().numpy(), self.B.cpu().numpy()).predict(self.lift(states), steps, self.lift if self.relift else None)
