"""Gaussian regression tasks: a shared evaluation in original units, and the end-to-end objectives.

`EndToEndTask.objective`:
- mse: the mean network alone (homoskedastic; also the first stage of the post-hoc method);
- nll: mean-variance estimation on the Gaussian NLL (Nix & Weigend 1994);
- beta_nll: each sample's NLL weighted by stop-grad(σ²)^β (Seitzer et al. 2022);
- faithful: MSE for the mean plus the NLL of the variance network with stop-gradients on the mean and on the
  shared representation (Stirn et al. 2023), so the mean is trained exactly as by MSE.
Every log-variance is clamped to [log_var_min, log_var_max] (standardised units).
"""

from __future__ import annotations

import torch
from torch import Tensor

from experiments.heteroskedastic.metrics import gaussian_nll, regression_metrics, to_original_units
from reprolab.cli.errors import ConfigError
from reprolab.tasks.base import Task

OBJECTIVES = ("mse", "nll", "beta_nll", "faithful")


def unpack(batch) -> tuple:
    """(x, y, σ_true) from a tabular batch, or (graph, y, NaN) from a PyG batch whose `y` is one target."""
    if isinstance(batch, list | tuple):
        x, y, sigma = batch
        return x, y, sigma
    y = batch.y.reshape(-1)
    return batch, y, torch.full_like(y, float("nan"))


def beta_nll(y: Tensor, mean: Tensor, var: Tensor, beta: float) -> Tensor:
    """Seitzer et al. (2022): mean of stop-grad(σ²)^β · NLL; β = 0 is the NLL, β = 1 gives the mean MSE's gradient."""
    return (var.detach() ** beta * gaussian_nll(y, mean, var)).mean()


class GaussianRegressionTask(Task):
    """Logs val/test RMSE, NLL, calibration error (and σ̂ error where σ is known), all in original units."""

    def __init__(self, model, optimizer, scheduler=None, log_var_min: float = -10.0, log_var_max: float = 10.0,
                 quantile_levels: int = 19):
        super().__init__(model, optimizer, scheduler)
        self.log_var_min, self.log_var_max = log_var_min, log_var_max
        self.register_buffer("levels", torch.linspace(0, 1, quantile_levels + 2)[1:-1], persistent=False)
        self._outputs: list = []
        self._train_loss = [0.0, 0]   # Σ loss·rows, rows: logged once per epoch (per-step logging dominated small runs)

    def accumulate_train_loss(self, loss: Tensor, rows: int) -> None:
        self._train_loss = [self._train_loss[0] + loss.detach() * rows, self._train_loss[1] + rows]

    def on_train_epoch_end(self) -> None:
        total, rows = self._train_loss
        if rows:
            self.log("train/loss", total / rows)
        self._train_loss = [0.0, 0]

    def clamp(self, log_var: Tensor) -> Tensor:
        return log_var.clamp(self.log_var_min, self.log_var_max)

    def predict(self, x) -> tuple[Tensor, Tensor | None]:
        """Mean and variance (None for a mean-only model) in standardised units."""
        raise NotImplementedError

    def _collect(self, batch) -> None:
        x, y, sigma = unpack(batch)
        mean, var = self.predict(x)
        self._outputs.append((y, mean, torch.ones_like(mean) if var is None else var, sigma))

    def _log_metrics(self, stage: str) -> None:
        y, mean, var, sigma = (torch.cat(parts) for parts in zip(*self._outputs, strict=True))
        self._outputs = []
        dm = self.trainer.datamodule
        y = y * dm.target_std + dm.target_mean
        mean, var = to_original_units(mean, var, dm.target_mean, dm.target_std)
        metrics = regression_metrics(y, mean, var if self._has_variance() else None, sigma * dm.target_std, self.levels)
        for key, value in metrics.items():
            self.log(f"{stage}/{key}", value, prog_bar=key in ("rmse", "nll"))

    def _has_variance(self) -> bool:
        return True

    def validation_step(self, batch, batch_idx):
        self._collect(batch)

    def test_step(self, batch, batch_idx):
        self._collect(batch)

    def on_validation_epoch_start(self):
        self._outputs = []

    def on_test_epoch_start(self):
        self._outputs = []

    def on_validation_epoch_end(self):
        if self._outputs:
            self._log_metrics("val")

    def on_test_epoch_end(self):
        if self._outputs:
            self._log_metrics("test")


class EndToEndTask(GaussianRegressionTask):
    def __init__(self, model, optimizer, scheduler=None, objective: str = "mse", beta: float = 0.5, **kwargs):
        super().__init__(model, optimizer, scheduler, **kwargs)
        if objective not in OBJECTIVES:
            raise ConfigError(f"task.objective must be one of {OBJECTIVES}; got '{objective}'")
        if (objective != "mse") != (getattr(model, "variance_head", None) is not None):
            raise ConfigError(f"task.objective={objective} needs model.variance_head="
                              f"{'none' if objective == 'mse' else 'linear (or mlp for faithful)'}")
        self.objective, self.beta = objective, beta

    def _has_variance(self) -> bool:
        return self.objective != "mse"

    def predict(self, x):
        out = self.model(x)
        return out["mean"], torch.exp(self.clamp(out["log_var"])) if "log_var" in out else None

    def training_step(self, batch, batch_idx):
        x, y, _ = unpack(batch)
        out = self.model(x, detach_latent=self.objective == "faithful")
        mean = out["mean"]
        if self.objective == "mse":
            loss = ((y - mean) ** 2).mean()
        else:
            var = torch.exp(self.clamp(out["log_var"]))
            if self.objective == "nll":
                loss = gaussian_nll(y, mean, var).mean()
            elif self.objective == "beta_nll":
                loss = beta_nll(y, mean, var, self.beta)
            else:  # faithful: the mean sees only the MSE; the variance network only the NLL
                loss = ((y - mean) ** 2).mean() + gaussian_nll(y, mean.detach(), var).mean()
        self.accumulate_train_loss(loss, len(y))
        return loss
