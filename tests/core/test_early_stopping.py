"""`callbacks=early_stopping`: the default callbacks plus Lightning's EarlyStopping on the experiment's
monitor, stopping a run whose monitor stops improving."""

from __future__ import annotations

import lightning as L
import torch
from lightning.pytorch.callbacks import EarlyStopping, ModelCheckpoint

from reprolab.config.compose import compose
from reprolab.run.trainer import build_callbacks


class FlatValidation(L.LightningModule):
    """Validation loss 1.0 at every check: nothing ever improves."""

    def __init__(self):
        super().__init__()
        self.w = torch.nn.Parameter(torch.zeros(1))

    def training_step(self, batch, batch_idx):
        return (self.w - batch[0]).pow(2).mean()

    def validation_step(self, batch, batch_idx):
        self.log("val/loss", 1.0 + 0.0 * self.w.sum())

    def configure_optimizers(self):
        return torch.optim.SGD(self.parameters(), lr=0.1)


def test_option_adds_early_stopping_on_the_monitor_to_the_defaults(tmp_path):
    cfg = compose(["callbacks=early_stopping", "monitor.metric=val/loss", "monitor.mode=min",
                   "callbacks.early_stopping.patience=2"], output_dir=tmp_path)
    callbacks = build_callbacks(cfg.callbacks, with_loggers=False)
    (stopper,) = [c for c in callbacks if isinstance(c, EarlyStopping)]
    assert any(isinstance(c, ModelCheckpoint) for c in callbacks)
    assert (stopper.monitor, stopper.mode, stopper.patience) == ("val/loss", "min", 2)


def test_a_flat_monitor_stops_the_run_after_patience_checks(tmp_path):
    cfg = compose(["callbacks=early_stopping", "monitor.metric=val/loss", "monitor.mode=min",
                   "callbacks.early_stopping.patience=2"], output_dir=tmp_path)
    stopper = [c for c in build_callbacks(cfg.callbacks, with_loggers=False) if isinstance(c, EarlyStopping)]
    data = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(torch.randn(8, 1)), batch_size=4)
    trainer = L.Trainer(max_epochs=20, callbacks=stopper, logger=False, enable_checkpointing=False,
                        enable_progress_bar=False, enable_model_summary=False, num_sanity_val_steps=0)
    trainer.fit(FlatValidation(), train_dataloaders=data, val_dataloaders=data)
    assert trainer.current_epoch == 3  # best at the first check, then 2 checks without improvement
