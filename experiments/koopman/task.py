"""Lightning task for the deep Koopman autoencoder: the Lusch et al. losses (`losses.koopman_losses`) on
windows from `data.KoopmanDataModule`. Logged per stage: loss, recon, pred, lin, inf and pred_rel
(k-step prediction MSE over the target variance); `val/loss` is the monitor."""

from __future__ import annotations

from experiments.koopman.losses import koopman_losses
from reprolab.cli.errors import ConfigError
from reprolab.tasks.base import Task


class KoopmanTask(Task):
    def __init__(self, model, optimizer, scheduler=None, pred_steps: int = 10, recon_weight: float = 0.1,
                 inf_weight: float = 1e-7):
        super().__init__(model, optimizer, scheduler)
        if pred_steps < 1:
            raise ConfigError(f"task.pred_steps must be >= 1; got {pred_steps}")
        self.pred_steps, self.recon_weight, self.inf_weight = pred_steps, recon_weight, inf_weight

    def _losses(self, batch):
        (window,) = batch
        if window.dim() != 3 or window.shape[1] < 2:
            raise ConfigError(f"Koopman batches are windows (batch, T+1 >= 2, d); got {tuple(window.shape)}")
        if self.pred_steps > window.shape[1] - 1:
            raise ConfigError(f"task.pred_steps ({self.pred_steps}) exceeds the window's {window.shape[1] - 1} "
                              "steps; raise data.window")
        return koopman_losses(self.model, window, self.pred_steps, self.recon_weight, self.inf_weight)

    def training_step(self, batch, batch_idx):
        losses = self._losses(batch)
        self.log("train/loss", losses["loss"], on_step=True, on_epoch=False, prog_bar=True)
        return losses["loss"]

    def _evaluate(self, batch, stage: str) -> None:
        for name, value in self._losses(batch).items():
            self.log(f"{stage}/{name}", value, on_step=False, on_epoch=True, prog_bar=name == "loss",
                     batch_size=batch[0].shape[0])

    def validation_step(self, batch, batch_idx):
        self._evaluate(batch, "val")

    def test_step(self, batch, batch_idx):
        self._evaluate(batch, "test")
