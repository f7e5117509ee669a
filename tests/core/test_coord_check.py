"""CoordinateCheck on a one-weight linear model whose activations and updates are worked out by hand."""

from __future__ import annotations

import json

import lightning as L
import pytest
import torch
from torch import nn
from torch.utils.data import DataLoader

from reprolab.callbacks.coord_check import CoordinateCheck


class ScaledSGD(torch.optim.SGD):
    """SGD with a {name: number} attribute, as DeltaAdamW's key_scales."""

    def __init__(self, params, lr):
        super().__init__(params, lr=lr)
        self.scales = {"layer": 2.5}


class Regression(L.LightningModule):
    def __init__(self):
        super().__init__()
        self.model = nn.Sequential(nn.Linear(2, 1, bias=False))
        with torch.no_grad():
            self.model[0].weight.copy_(torch.tensor([[1.0, 2.0]]))

    def forward(self, x):
        return self.model(x)

    def training_step(self, batch, batch_idx):
        x, y = batch
        return ((self(x) - y) ** 2).mean()

    def configure_optimizers(self):
        return ScaledSGD(self.parameters(), lr=0.1)


def fit(tmp_path, callback, steps=3):
    batch = (torch.tensor([[1.0, 1.0]]), torch.tensor([[0.0]]))
    trainer = L.Trainer(max_steps=steps, logger=False, enable_checkpointing=False, enable_progress_bar=False,
                        enable_model_summary=False, callbacks=[callback], default_root_dir=tmp_path)
    trainer.fit(Regression(), train_dataloaders=DataLoader([batch] * 10, batch_size=None))


def test_records_activation_and_update_scales_by_hand(tmp_path):
    fit(tmp_path, CoordinateCheck(steps=2, modules=["model.0"], optimizer_attr="scales"))
    record = json.loads((tmp_path / "coord_check.json").read_text())
    # w = (1, 2), x = (1, 1): h = 3; grad = 2·h·x = (6, 6), lr 0.1 → Δw = −0.6 each, h = 1.8;
    # then grad = (3.6, 3.6) → Δw = −0.36 each, h = 1.08
    assert record["steps"] == [0, 1, 2]
    assert record["activation"]["model.0"] == pytest.approx([3.0, 1.8, 1.08])
    assert record["activation_change"]["model.0"] == pytest.approx([0.0, 1.2, 1.92])
    assert record["update"]["model.0.weight"] == pytest.approx([0.6, 0.36])
    assert record["scales"] == {"layer": 2.5}


def test_bad_settings_are_refused(tmp_path):
    with pytest.raises(ValueError, match="no module name matches"):
        fit(tmp_path, CoordinateCheck(steps=1, modules=["encoder.*"]))
    with pytest.raises(ValueError, match="steps must be"):
        CoordinateCheck(steps=0)
