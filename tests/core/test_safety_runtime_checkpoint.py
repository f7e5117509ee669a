"""`last.ckpt` is the state at the end of the last validation (improving or not) and at the end of fit."""

from __future__ import annotations

import lightning as L
import pytest
import torch
from torch.utils.data import DataLoader, TensorDataset

from reprolab.callbacks import BufferedCheckpoint, FiniteLossGuard
from reprolab.cli.errors import NonFiniteLossError
from tests.core.test_checkpoint import VAL_LOSSES, Scripted, kwargs


class NaNFromStep(Scripted):
    def __init__(self, nan_at_step: int):
        super().__init__()
        self.nan_at_step = nan_at_step

    def training_step(self, batch, batch_idx):
        loss = super().training_step(batch, batch_idx)
        return loss * torch.nan if self.global_step >= self.nan_at_step else loss


def fit(tmp_path, model, write_interval_s, **trainer_kwargs):
    torch.manual_seed(0)
    data = TensorDataset(torch.randn(8, 4), torch.randn(8, 1))
    checkpoint = BufferedCheckpoint(**kwargs(tmp_path), write_interval_s=write_interval_s)
    trainer = L.Trainer(logger=False, callbacks=[checkpoint, FiniteLossGuard()], enable_progress_bar=False,
                        enable_model_summary=False, num_sanity_val_steps=0, default_root_dir=tmp_path,
                        **{"limit_val_batches": 1, **trainer_kwargs})
    trainer.fit(model, DataLoader(data, batch_size=4), DataLoader(data, batch_size=8))
    return trainer


def load(path):
    return torch.load(path, weights_only=False)


@pytest.mark.parametrize("write_interval_s", [0, 3600])
def test_a_finished_run_leaves_last_at_the_final_epoch_though_late_validations_did_not_improve(tmp_path, write_interval_s):
    model = Scripted()
    fit(tmp_path, model, write_interval_s, max_epochs=len(VAL_LOSSES))  # 2 steps an epoch; best: epoch 1 (step 4)
    assert sorted(p.name for p in (tmp_path / "ckpt").iterdir()) == ["best-step=4.ckpt", "last.ckpt"]
    last = load(tmp_path / "ckpt" / "last.ckpt")
    assert (last["global_step"], last["epoch"]) == (10, len(VAL_LOSSES))
    for key, value in model.state_dict().items():
        assert torch.equal(last["state_dict"][key], value)


@pytest.mark.parametrize("write_interval_s", [0, 3600])
def test_a_nan_leaves_last_from_the_validation_just_before_it(tmp_path, write_interval_s):
    """Validations after steps 1..4 (loss 3, 1, 2, 4: the best is step 2); the loss turns NaN at step 4."""
    with pytest.raises(NonFiniteLossError, match="last.ckpt"):
        fit(tmp_path, NaNFromStep(nan_at_step=4), write_interval_s, max_steps=10, val_check_interval=1,
            check_val_every_n_epoch=None)
    assert load(tmp_path / "ckpt" / "last.ckpt")["global_step"] == 4
    assert load(tmp_path / "ckpt" / "best-step=2.ckpt")["global_step"] == 2


def test_last_is_written_at_the_end_of_fit_when_nothing_was_validated(tmp_path):
    fit(tmp_path, Scripted(), 3600, max_steps=3, limit_val_batches=0)
    assert load(tmp_path / "ckpt" / "last.ckpt")["global_step"] == 3
