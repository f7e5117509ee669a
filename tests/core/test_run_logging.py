"""The known-noise filter: Lightning's "fewer batches than the logging interval" warning is false for our runs
(the interval counts the run's steps, not an epoch's), so it is dropped, and the runs still log at that interval."""

from __future__ import annotations

import csv
import warnings

import lightning as L
import torch
from lightning.pytorch.loggers import CSVLogger
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

from reprolab.run_logging import silence_known_noise

MESSAGE = "is smaller than the logging interval"


class TinyRegression(L.LightningModule):
    def __init__(self):
        super().__init__()
        self.net = nn.Linear(2, 1)

    def training_step(self, batch, batch_idx):
        x, y = batch
        loss = nn.functional.mse_loss(self.net(x), y)
        self.log("train/loss", loss)
        return loss

    def configure_optimizers(self):
        return torch.optim.SGD(self.parameters(), lr=0.1)


def fit_short_epochs(log_dir, silenced: bool) -> list[str]:
    """4 epochs of 3 batches, log_every_n_steps=5; the warnings it raised."""
    data = DataLoader(TensorDataset(torch.randn(12, 2), torch.randn(12, 1)), batch_size=4)
    trainer = L.Trainer(max_epochs=4, log_every_n_steps=5, logger=CSVLogger(log_dir, name="", version=""),
                        enable_checkpointing=False, enable_progress_bar=False, enable_model_summary=False)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        if silenced:
            silence_known_noise()
        trainer.fit(TinyRegression(), data)
    return [str(w.message) for w in caught]


def test_lightning_raises_it_for_short_epochs(tmp_path):
    assert any(MESSAGE in m for m in fit_short_epochs(tmp_path, silenced=False))


def test_silenced_and_the_run_still_logs_every_5_steps(tmp_path):
    caught = fit_short_epochs(tmp_path, silenced=True)
    assert not any(MESSAGE in m for m in caught)
    with open(tmp_path / "metrics.csv") as f:
        steps = [int(row["step"]) for row in csv.DictReader(f) if row.get("train/loss")]
    assert steps == [4, 9]  # global steps 5 and 10 of 12, across epoch boundaries
