"""Lightning tasks: `DagGPTask` trains any DAG deep GP on the negative ELBO through the one trainer and
scores held-out rows by the Monte-Carlo mixture NLL; `PriorCollapseTask` measures prior draws on a chain
(max_steps = 0: nothing is trained, the test step does the analysis)."""

from __future__ import annotations

import torch

from reprolab.cli.errors import ConfigError
from reprolab.tasks.base import Task


class DagGPTask(Task):
    def __init__(self, model, optimizer, scheduler=None, n_samples: int = 4, test_samples: int = 64,
                 target_nodes: list[str] | None = None, correlation_pair: list[str] | None = None):
        super().__init__(model, optimizer, scheduler)
        targets = list(target_nodes) if target_nodes else list(model.observed)
        unknown = [t for t in targets if t not in model.observed]
        if unknown:
            raise ConfigError(f"task.target_nodes {unknown} are not observed nodes {model.observed}")
        self.register_buffer("target", torch.tensor([float(n in targets) for n in model.observed]))
        self.n_samples, self.test_samples = n_samples, test_samples
        self.correlation_pair = list(correlation_pair) if correlation_pair else None

    def training_step(self, batch, batch_idx):
        x, y, mask = batch
        n_data = self.trainer.datamodule.n_train
        loss = -self.model.elbo(x, y, mask, n_data, self.n_samples) / n_data
        self.log("train/loss", loss, on_step=True, on_epoch=False, prog_bar=True)
        return loss

    def _evaluate(self, batch, stage: str) -> None:
        x, y, mask = batch
        mask = mask * self.target
        observed = mask.sum(-1) > 0
        nll = -self.model.log_predictive(x, y, mask, self.test_samples)[observed]
        mean = self.model(x, self.test_samples).mean(0)[..., self.model.column]
        sq = ((mean - y).pow(2) * mask).sum() / mask.sum()
        log = dict(on_step=False, on_epoch=True, batch_size=len(x))
        self.log(f"{stage}/nll", nll.mean(), prog_bar=True, **log)
        self.log(f"{stage}/nll_per_node", nll.sum() / mask.sum(), **log)
        self.log(f"{stage}/rmse", sq.sqrt(), **log)
        if self.correlation_pair:
            corr = self.model.root_correlation(x, *self.correlation_pair)
            self.log(f"{stage}/latent_corr", corr.mean(), **log)
            self.log(f"{stage}/latent_abs_corr", corr.abs().mean(), **log)

    def validation_step(self, batch, batch_idx):
        self._evaluate(batch, "val")

    def test_step(self, batch, batch_idx):
        self._evaluate(batch, "test")


class PriorCollapseTask(Task):
    """Share of grid intervals where a prior draw still separates neighbouring inputs, |Δf / Δx| > threshold,
    at every depth of a chain (Dunlop et al. 2018, §4; Duvenaud et al. 2014, §2)."""

    def __init__(self, model, optimizer, scheduler=None, n_draws: int = 100, slope_threshold: float = 0.1):
        super().__init__(model, optimizer, scheduler)
        self.n_draws, self.slope_threshold = n_draws, slope_threshold

    def training_step(self, batch, batch_idx):
        if self.trainer.fast_dev_run:  # a pipeline check (debug=fdr): nothing to train, skip the step
            return None
        raise ConfigError("the prior-collapse analysis trains nothing: set trainer.max_steps=0")

    def test_step(self, batch, batch_idx):
        x = batch[0]
        draws = self.model.prior_sample(x, self.n_draws)               # (draws, B, depth)
        slope = draws.diff(dim=1).abs() / x.diff(dim=0)[None, :, :1]
        survive = (slope > self.slope_threshold).double().mean(dim=(0, 1))
        for depth, value in enumerate(survive.tolist(), start=1):
            self.log(f"test/survive_d{depth}", value, batch_size=len(x))
        self.log("test/survive_final", survive[-1], batch_size=len(x))
        self.log("test/slope_median_final", slope[..., -1].median(), batch_size=len(x))
