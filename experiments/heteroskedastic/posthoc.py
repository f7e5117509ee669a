"""The post-hoc variance stage: a linear log-variance head on the frozen mean network's latents, fitted by
Gaussian NLL on the hold-out split only, then a constant-scale calibration (Jordahn et al. 2026, abstract; the paper body was not at hand).

`layers`: all (the concatenated hidden layers, the method), last (the last hidden layer, the control) or
none (a constant variance: the homoskedastic baseline on the same hold-out). Two ensembles of linear heads
average their variances (an equal mixture with one mean): `ensemble=true`, one head per chosen layer, and
`bootstrap_heads=K`, K heads on the same latents, each fitted on its own bootstrap resample of the hold-out
(rows weighted by their resample counts, seeded by `bootstrap_seed`). Latents are
standardised with hold-out statistics; the head's weights carry an L2 penalty `l2` (its bias does not).
The scale s = mean(r²/σ̂²) over the calibration split is the NLL-optimal constant factor on σ̂².
"""

from __future__ import annotations

import math
from pathlib import Path

import torch
from torch import Tensor, nn

from experiments.heteroskedastic.task import GaussianRegressionTask, unpack
from reprolab.cli.errors import ConfigError, DatasetNotFoundError
from reprolab.run.finished_model import model_state
from reprolab.run.folder import run_checkpoint

LAYERS = ("all", "last", "none")


def calibration_scale(residuals: Tensor, var: Tensor) -> Tensor:
    """argmin_s Σ NLL(r; 0, s σ̂²) = mean(r² / σ̂²): the constant factor that calibrates σ̂² on a split."""
    return (residuals**2 / var).mean()


def bootstrap_counts(n: int, heads: int, seed: int) -> Tensor:
    """[heads, n]: how often each hold-out row is drawn in each head's resample of n rows with replacement."""
    draws = torch.randint(n, (heads, n), generator=torch.Generator().manual_seed(seed))
    return torch.stack([torch.bincount(d, minlength=n) for d in draws]).float()


class LatentVarianceHead(nn.Module):
    def __init__(self, hidden_sizes: list[int], layers: str = "all", ensemble: bool = False, bootstrap_heads: int = 0):
        super().__init__()
        if layers not in LAYERS:
            raise ConfigError(f"task.layers must be one of {LAYERS}; got '{layers}'")
        if bootstrap_heads < 0 or (ensemble and bootstrap_heads):
            raise ConfigError(f"task.bootstrap_heads={bootstrap_heads}, task.ensemble={ensemble}: use a count ≥ 0, "
                              "and either one head per layer (ensemble) or bootstrap heads, not both")
        ids = {"all": list(range(len(hidden_sizes))), "last": [len(hidden_sizes) - 1], "none": []}[layers]
        self.groups = [[i] for i in ids] if ensemble and ids else [ids] * max(bootstrap_heads, 1)
        starts = dict(zip(ids, torch.tensor([0, *(hidden_sizes[i] for i in ids)]).cumsum(0).tolist(), strict=False))
        self.columns = [[c for i in g for c in range(starts[i], starts[i] + hidden_sizes[i])] for g in self.groups]
        self.linears = nn.ModuleList(nn.Linear(len(cols), 1) for cols in self.columns)
        dim = sum(hidden_sizes[i] for i in ids)
        self.register_buffer("feature_mean", torch.zeros(dim))
        self.register_buffer("feature_std", torch.ones(dim))
        self.register_buffer("scale", torch.ones(()))
        self.ids = ids

    def features(self, hidden: list[Tensor]) -> Tensor:
        if not self.ids:
            return hidden[0].new_zeros(hidden[0].shape[0], 0)
        return torch.cat([hidden[i] for i in self.ids], dim=1)

    def set_standardisation(self, features: Tensor) -> None:
        if features.shape[1] == 0:
            return
        self.feature_mean.copy_(features.mean(0))
        self.feature_std.copy_(features.std(0).clamp_min(1e-6))

    def start_at_constant(self, variance: float) -> None:
        """Zero weights and log σ² = log(mean r²) in every head: the homoskedastic fit, the start of the NLL fit."""
        for lin in self.linears:
            nn.init.zeros_(lin.weight)
            nn.init.constant_(lin.bias, math.log(variance))

    def log_vars(self, hidden: list[Tensor]) -> list[Tensor]:
        """One uncalibrated log σ² per head (standardised target units)."""
        z = (self.features(hidden) - self.feature_mean) / self.feature_std
        return [lin(z[:, cols]).squeeze(-1) for lin, cols in zip(self.linears, self.columns, strict=True)]

    def penalty(self) -> Tensor:
        return sum((lin.weight**2).sum() for lin in self.linears)


class PosthocRegressor(nn.Module):
    def __init__(self, backbone: nn.Module, head: LatentVarianceHead):
        super().__init__()
        self.backbone, self.head = backbone, head

    def forward(self, x) -> dict:
        with torch.no_grad():
            out = self.backbone(x)
        return {"mean": out["mean"], "hidden": out["hidden"], "log_vars": self.head.log_vars(out["hidden"])}


RUN_MEAN_STAGE = ("run the mean stage first (make claim-heteroskedastic runs it into mean_runs; one run: reprolab-train "
                  "experiment=heteroskedastic/mean_cpu), or set task.mean_ckpt=<a finished mean run's folder or .ckpt>")


def resolve_checkpoint(mean_ckpt: str | None) -> Path:
    """A checkpoint file, or a finished mean run's folder (its metrics.json names the best checkpoint)."""
    if not mean_ckpt:
        raise ConfigError("the post-hoc variance stage needs task.mean_ckpt=<mean run folder or .ckpt>")
    path = Path(mean_ckpt)
    if path.is_dir():
        metrics = path / "metrics.json"
        if not metrics.is_file():
            raise DatasetNotFoundError(f"mean run '{path}' has no metrics.json; {RUN_MEAN_STAGE}")
        path = run_checkpoint(path)
    if not path.is_file():
        raise DatasetNotFoundError(f"no mean-network checkpoint at '{path}'; {RUN_MEAN_STAGE}")
    return path


class PosthocVarianceTask(GaussianRegressionTask):
    def __init__(self, model, optimizer, scheduler=None, mean_ckpt: str | None = None, layers: str = "all",
                 ensemble: bool = False, bootstrap_heads: int = 0, bootstrap_seed: int = 0, l2: float = 1e-3,
                 calibrate: bool = True, calibration_split: str = "holdout", **kwargs):
        super().__init__(model, optimizer, scheduler, **kwargs)
        model.requires_grad_(False)
        self.model = PosthocRegressor(model, LatentVarianceHead(model.hidden_sizes, layers, ensemble, bootstrap_heads))
        self.mean_ckpt, self.l2, self.calibrate, self.calibration_split = mean_ckpt, l2, calibrate, calibration_split
        self.bootstrap_heads, self.bootstrap_seed = bootstrap_heads, bootstrap_seed
        self.row_weights: Tensor | None = None   # [heads, hold-out rows] resample counts; None: every row once

    def setup(self, stage: str) -> None:
        """Load the frozen mean network before fitting (a test of a finished stage-2 run restores it all)."""
        if stage != "fit":
            return
        weights = model_state(resolve_checkpoint(self.mean_ckpt))
        try:
            self.model.backbone.load_state_dict(weights)
        except RuntimeError as err:
            raise ConfigError(f"task.mean_ckpt does not fit model (a mean-only network is expected): "
                              f"{str(err).splitlines()[0]}") from err

    def _latents_and_residuals(self, split: str) -> tuple[Tensor, list[Tensor], Tensor]:
        feats, log_vars, residuals = [], [], []
        with torch.no_grad():
            for batch in self.trainer.datamodule.loader(split):
                x, y, _ = unpack(self._to_device(batch))
                out = self.model(x)
                feats.append(self.model.head.features(out["hidden"]))
                log_vars.append(torch.stack(out["log_vars"], 1))
                residuals.append(y - out["mean"])
        return torch.cat(feats), torch.cat(log_vars), torch.cat(residuals)

    def _to_device(self, batch):
        return [t.to(self.device) for t in batch] if isinstance(batch, list | tuple) else batch.to(self.device)

    def on_fit_start(self):
        if getattr(self.trainer.datamodule, "fit_on", "holdout") != "holdout":
            raise ConfigError("the post-hoc variance stage fits on the hold-out split: set data.fit_on=holdout")
        features, _, residuals = self._latents_and_residuals("holdout")
        self.model.head.set_standardisation(features)
        self.model.head.start_at_constant(float((residuals**2).mean()))
        if self.bootstrap_heads:
            self.row_weights = bootstrap_counts(len(residuals), self.bootstrap_heads, self.bootstrap_seed).to(self.device)

    def training_step(self, batch, batch_idx):
        """Σ_heads mean_i w_ki · ½(log σ²_k + r_i²/σ²_k) + l2·‖weights‖², w_k the head's bootstrap counts (else 1)."""
        x, y, _ = unpack(batch)
        weights = [1.0] * len(self.model.head.linears) if self.row_weights is None else self.row_weights
        if self.row_weights is not None and len(y) != self.row_weights.shape[1]:
            raise ConfigError("task.bootstrap_heads needs the whole hold-out as one batch in its order "
                              "(the tabular data module with data.fit_on=holdout)")
        out = self.model(x)
        nll = sum((w * 0.5 * (self.clamp(lv) + (y - out["mean"]) ** 2 * torch.exp(-self.clamp(lv)))).mean()
                  for w, lv in zip(weights, out["log_vars"], strict=True))
        loss = nll + self.l2 * self.model.head.penalty()
        self.accumulate_train_loss(loss, len(y))
        return loss

    def variance(self, log_vars: list[Tensor] | Tensor) -> Tensor:
        """Mean of the heads' variances, times the calibration scale."""
        stacked = torch.stack(log_vars, -1) if isinstance(log_vars, list) else log_vars
        return torch.exp(self.clamp(stacked)).mean(-1) * self.model.head.scale

    def on_train_batch_end(self, outputs, batch, batch_idx):
        """Constant-scale calibration after an epoch's last step, before its validation and checkpoint."""
        if not self.trainer.is_last_batch:
            return
        if self.calibrate:
            self.model.head.scale.fill_(1.0)
            _, log_vars, residuals = self._latents_and_residuals(self.calibration_split)
            self.model.head.scale.fill_(float(calibration_scale(residuals, self.variance(log_vars))))
        self.log("train/calibration_scale", self.model.head.scale)

    def predict(self, x):
        out = self.model(x)
        return out["mean"], self.variance(out["log_vars"])
