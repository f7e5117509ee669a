"""Lightning task for guided depth super-resolution: deep-supervised loss, per-set RMSE in the set's
convention (`metrics.dsr_rmse`), and the bicubic RMSE of the same images logged beside it.

Batches are dicts from `datamodule.DepthSRDataModule`: rgb (B,3,H,W), lr (B,1,h,w), gt (B,1,H,W),
minmax (B,2), degradation (B,2) = (scale, noise_std). Logged: `train/loss` (and `train/degradation_loss` when
`degradation_loss_weight` > 0: MSE of the model's degradation estimate against the code, added with that
weight); `val/rmse` (mean over every val image, the monitor) and `val/rmse_<set>`; `test/rmse_<set>` and
`test/rmse_bicubic_<set>` for each test set, and for the bins head `test/bin_width_<set>` (mean over pixels of
Σ_k p_k·width_k of the last stage, 0–255 depth units; flat to first order around uniform bins),
`test/bin_range_<set>` (its half-range s) and `test/bin_spread_<set>` (std of the bin distribution), same units, and
`test/bin_entropy_<set>` (mean entropy of the bin distribution, nats; log N at uniform bins); with a degradation
estimate, `test/degradation_error_<set>` = ‖ĉ − c‖ (`model.degradation_error`, code units).
"""

from __future__ import annotations

import torch.nn.functional as F

from experiments.degbins.heads import bin_spread, expected_bin_width
from experiments.degbins.metrics import dsr_rmse
from experiments.degbins.model import degradation_error, stage_loss
from reprolab.cli.errors import ConfigError
from reprolab.tasks.base import Task

NEEDS_MINMAX = ("nyu", "rgbdd")


class DepthSRTask(Task):
    def __init__(self, model, optimizer, scheduler=None, loss: str = "l1", stage_decay: float = 0.8,
                 loss_scale: float = 255.0, degradation_loss_weight: float = 0.0):
        super().__init__(model, optimizer, scheduler)
        self.loss_kind, self.stage_decay, self.loss_scale = loss, stage_decay, loss_scale
        if degradation_loss_weight > 0 and getattr(model, "estimator", None) is None:
            raise ConfigError("task.degradation_loss_weight > 0 needs model.estimate_degradation=true")
        self.degradation_loss_weight = degradation_loss_weight

    @staticmethod
    def _unpack(batch):
        try:
            rgb, lr, gt = batch["rgb"], batch["lr"], batch["gt"]
        except (KeyError, TypeError, IndexError) as err:
            raise ConfigError("depth SR expects dict batches with rgb, lr, gt (and minmax); "
                              "use experiments.degbins.datamodule.DepthSRDataModule") from err
        if rgb.dim() != 4 or gt.dim() != 4 or rgb.shape[-2:] != gt.shape[-2:]:
            raise ConfigError(f"depth SR expects rgb (B,3,H,W) and gt (B,1,H,W) of one size; "
                              f"got {tuple(rgb.shape)} and {tuple(gt.shape)}")
        return rgb, lr, gt

    def training_step(self, batch, batch_idx):
        rgb, lr, gt = self._unpack(batch)
        out = self.model(rgb, lr, batch.get("degradation"))
        loss = stage_loss(out["depth"], gt, self.stage_decay, self.loss_kind, self.loss_scale)
        if self.degradation_loss_weight > 0:
            if out.get("degradation_code") is None:
                raise ConfigError("task.degradation_loss_weight > 0 needs batches that carry `degradation`")
            aux = F.mse_loss(out["degradation_estimate"], out["degradation_code"])
            self.log("train/degradation_loss", aux, on_step=True, on_epoch=False)
            loss = loss + self.degradation_loss_weight * aux
        self.log("train/loss", loss, on_step=True, on_epoch=False, prog_bar=True)
        return loss

    def _evaluate(self, batch, stage: str) -> None:
        rgb, lr, gt = self._unpack(batch)
        if gt.shape[0] != 1:
            raise ConfigError(f"{stage} batches must hold one image (sizes differ across sets); got {gt.shape[0]}")
        name, convention = self.trainer.datamodule.conventions(stage)[int(batch["set_index"][0])]
        out = self.model(rgb, lr, batch.get("degradation"))
        minmax = batch["minmax"] if convention in NEEDS_MINMAX else None
        rmse = dsr_rmse(out["depth"][-1], gt, convention, minmax).mean()
        kw = dict(on_step=False, on_epoch=True, batch_size=1, sync_dist=True)
        self.log(f"{stage}/rmse_{name}", rmse, **kw)
        if stage == "val":
            self.log("val/rmse", rmse, prog_bar=True, **kw)
        else:
            self.log(f"test/rmse_bicubic_{name}", dsr_rmse(out["up"], gt, convention, minmax).mean(), **kw)
            if "widths" in out:
                width = expected_bin_width(out["probs"], out["widths"]).mean()
                self.log(f"test/bin_width_{name}", self.loss_scale * width, **kw)
                self.log(f"test/bin_range_{name}", self.loss_scale * out["ranges"][-1].mean(), **kw)
                self.log(f"test/bin_spread_{name}", self.loss_scale * bin_spread(out["probs"], out["centers"]).mean(), **kw)
                self.log(f"test/bin_entropy_{name}", out["entropy"].mean(), **kw)
            if out.get("degradation_code") is not None:
                error = degradation_error(out["degradation_estimate"], out["degradation_code"]).mean()
                self.log(f"test/degradation_error_{name}", error, **kw)

    def validation_step(self, batch, batch_idx):
        self._evaluate(batch, "val")

    def test_step(self, batch, batch_idx):
        self._evaluate(batch, "test")
