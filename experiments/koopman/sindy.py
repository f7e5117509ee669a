"""SINDy (Brunton, Proctor & Kutz 2016, PNAS 113:3932, Eqs. 3–5 and its Code 1), the sparse-regression baseline
for the readout's dictionary: Ẋ ≈ Θ(X)Ξ, with Ξ found by sequentially thresholded least squares (STLSQ).

As PySINDy does it by default (`pysindy.SINDy()`): Θ the polynomial library of degree 2 with the constant
(`model.degree`), Ẋ by second-order finite differences along each orbit, centred inside and one-sided at the
ends (`pysindy.differentiation.FiniteDifference(order=2)`; `model.fd_order`), STLSQ with threshold 0.1, ridge
α 0.05, at most 20 iterations and no column normalisation (`model.threshold`, `model.alpha`, `model.max_iter`;
`dictionary.stlsq`, pysindy's STLSQ — the same solver the KAN readout uses). It is fitted on the raw, noise-free
states of the deep models' training orbits (the datamodule's `orbits["train"]`) at their time step
(`model.dt` = `data.params.dt`).

The dictionary it names is the union of the library terms active in any equation (`active_terms`): on Lorenz,
ẋ = σ(y − x), ẏ = ρx − xz − y, ż = xy − βz, exactly {x, y, z, xy, xz}. Its k-step prediction integrates the
identified field with the data's own RK4 step (`systems.rk4_step`).
"""

from __future__ import annotations

import numpy as np
import torch

from experiments.koopman.closed_form import ClosedFormDynamics, frozen
from experiments.koopman.dictionary import active_terms, stlsq
from experiments.koopman.systems import rk4_step
from reprolab.cli.errors import ConfigError


def finite_difference(orbits: np.ndarray, dt: float, order: int = 2) -> np.ndarray:
    """(n_orbits, T + 1, d) → the same shape of time derivatives, each orbit by PySINDy's FiniteDifference."""
    try:
        from pysindy.differentiation import FiniteDifference
    except ImportError as err:
        raise ImportError("the SINDy arm needs pysindy; run pip install -e '.[koopman]'") from err
    return np.stack([FiniteDifference(order=order)(orbit, t=dt) for orbit in orbits])


class SINDy(ClosedFormDynamics):
    def __init__(self, state_dim: int, variables: list[str], dt: float, degree: int = 2, threshold: float = 0.1,
                 alpha: float = 0.05, max_iter: int = 20, fd_order: int = 2):
        super().__init__(state_dim, variables, degree)
        if dt <= 0 or threshold < 0 or alpha < 0 or max_iter < 1:
            raise ConfigError(f"SINDy needs dt > 0, threshold >= 0, alpha >= 0, max_iter >= 1; got dt={dt}, "
                              f"threshold={threshold}, alpha={alpha}, max_iter={max_iter}")
        self.dt, self.threshold, self.alpha, self.max_iter, self.fd_order = dt, threshold, alpha, max_iter, fd_order
        self.coef = frozen(len(self.names), state_dim)        # Ξ: (library terms, state coordinates)

    def fit_states(self, datamodule) -> None:
        orbits = datamodule.orbits["train"]
        states = orbits.reshape(-1, orbits.shape[-1])
        derivatives = finite_difference(orbits, self.dt, self.fd_order).reshape(states.shape)
        coef = stlsq(self.lift(states), derivatives, self.threshold, self.alpha, self.max_iter)
        self.coef.copy_(torch.from_numpy(coef))

    def field(self, states: np.ndarray) -> np.ndarray:
        """The identified vector field Θ(s)Ξ."""
        return self.lift(states) @ self.coef.cpu().numpy()

    def rollout(self, states: np.ndarray, steps: int) -> np.ndarray:
        out = []
        for _ in range(steps):
            states = rk4_step(self.field, states, self.dt)
            out.append(states)
        return np.stack(out, axis=1)

    def active_terms(self) -> list[str]:
        """The dictionary SINDy names: library terms with a nonzero coefficient in any equation, constant left out."""
        return active_terms(self.coef.cpu().numpy(), self.names)
