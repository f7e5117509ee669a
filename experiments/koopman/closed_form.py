"""The baselines fitted in closed form on the same training orbits as the deep models (SINDy, EDMD), run through
`reprolab-train` like any arm: `ClosedFormDynamics` is their common shape, `ClosedFormTask` fits one and scores it.

A closed-form model lives in the system's own coordinates: its lift is the polynomial library of the raw
coordinates (`dictionary.polynomial_library`, the readout's library), and its k-step prediction `model(x0, steps)`
takes and returns the deep model's inputs (coordinates divided by the datamodule's `scale`), so the readout's
`koopman/pred_rel` scores it by the same code on the same test windows as the deep model. Its fitted coefficients
are frozen `nn.Parameter`s: the model's parameters, which no optimizer touches. With no optimizer step Lightning
writes no checkpoint, so the run tests the model it fitted, and the readout refits it on the run's orbits (the fit
is deterministic, as `task=sklearn_estimator` rebuilds its estimator).

`ClosedFormTask` fits the model once, before the first epoch (`on_fit_start`, from `trainer.datamodule`'s training
orbits), runs no optimizer, and logs `val/`, `test/` `loss` and `pred` (the k-step prediction MSE) and `pred_rel`
(`losses.prediction_error`) on the same windows the deep Koopman task scores. (`task=sklearn_estimator` does not fit: it scores class labels.)
"""

from __future__ import annotations

import lightning as L
import numpy as np
import torch
from torch import nn

from experiments.koopman.dictionary import polynomial_library
from experiments.koopman.losses import prediction_error
from reprolab.cli.errors import ConfigError


def frozen(*shape: int) -> nn.Parameter:
    return nn.Parameter(torch.zeros(*shape, dtype=torch.float64), requires_grad=False)


class ClosedFormDynamics(nn.Module):
    """Subclasses define `fit_states(datamodule)` (set their parameters from the training orbits) and
    `rollout(states, steps)` ((n, d) raw states → (n, steps, d) raw states)."""

    def __init__(self, state_dim: int, variables: list[str], degree: int = 2):
        super().__init__()
        if state_dim != len(variables):
            raise ConfigError(f"model.variables {list(variables)} must name the {state_dim} state coordinates")
        self.variables, self.degree = list(variables), degree
        _, self.names, self.orders = polynomial_library(np.zeros((1, state_dim)), self.variables, degree)
        self.register_buffer("scale", torch.ones(state_dim, dtype=torch.float64))

    def lift(self, states: np.ndarray) -> np.ndarray:
        """Θ(s): the monomials of the raw coordinates up to `degree`, constant first."""
        return polynomial_library(states, self.variables, self.degree)[0]

    def fit(self, datamodule) -> ClosedFormDynamics:
        if datamodule.period is not None:
            raise ConfigError(f"{type(self).__name__} fits a polynomial model in plain coordinates; data.system "
                              f"'{datamodule.system}' lives on a torus: use lorenz or ikeda")
        self.scale.copy_(torch.from_numpy(datamodule.scale))
        self.fit_states(datamodule)
        return self

    def fit_states(self, datamodule) -> None:
        raise NotImplementedError

    def rollout(self, states: np.ndarray, steps: int) -> np.ndarray:
        raise NotImplementedError

    def forward(self, x0: torch.Tensor, steps: int = 1) -> torch.Tensor:
        """Predicted model inputs x̂_m, m = 1..steps, from inputs x0 (coordinates / scale): (n, d) → (n, steps, d)."""
        scale = self.scale.cpu().numpy()
        with np.errstate(over="ignore", invalid="ignore"):  # a wrong model may diverge: scored as it is
            out = self.rollout(x0.detach().double().cpu().numpy() * scale, steps) / scale
        return torch.from_numpy(out).to(x0)


class ClosedFormTask(L.LightningModule):
    # by design (reprolab.run.job_logging.expected_warnings): the model is fitted in closed form, with no optimizer
    expected_warnings = ("`LightningModule.configure_optimizers` returned `None`",)

    def __init__(self, model: ClosedFormDynamics, optimizer=None, scheduler=None, pred_steps: int = 10):
        super().__init__()
        if not isinstance(model, ClosedFormDynamics):
            raise ConfigError(f"task=koopman_closed_form fits a closed-form model (model=koopman_sindy | koopman_edmd), "
                              f"got {type(model).__name__}: use task=koopman for a network")
        if optimizer is not None or scheduler is not None:
            raise ConfigError("a closed-form model is fitted without an optimizer: set optimizer=null scheduler=null")
        if pred_steps < 1:
            raise ConfigError(f"task.pred_steps must be >= 1; got {pred_steps}")
        self.automatic_optimization = False
        self.model, self.pred_steps = model, pred_steps

    def configure_optimizers(self):
        return None

    def on_fit_start(self) -> None:
        self.model.fit(self.trainer.datamodule)

    def training_step(self, batch, batch_idx):
        self.trainer.should_stop = True  # the fit happened in on_fit_start; an epoch adds nothing

    def _evaluate(self, batch, stage: str) -> None:
        (window,) = batch
        if self.pred_steps > window.shape[1] - 1:
            raise ConfigError(f"task.pred_steps ({self.pred_steps}) exceeds the window's {window.shape[1] - 1} steps")
        future = window[:, 1:self.pred_steps + 1]
        pred = self.model(window[:, 0], self.pred_steps)
        mse, rel = prediction_error(future, pred)
        self.log_dict({f"{stage}/loss": mse, f"{stage}/pred": mse, f"{stage}/pred_rel": rel}, on_step=False,
                      on_epoch=True, prog_bar=False, batch_size=window.shape[0])

    def validation_step(self, batch, batch_idx):
        self._evaluate(batch, "val")

    def test_step(self, batch, batch_idx):
        self._evaluate(batch, "test")
