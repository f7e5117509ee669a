"""`last.ckpt` is the state at the end of fit and of the latest validation once `write_interval_s` has passed; a NaN
stops the run before any checkpoint of non-finite weights is written."""

from __future__ import annotations

import lightning as L
import pytest
import torch
from lightning.pytorch.callbacks import ModelCheckpoint
from torch.utils.data import DataLoader, TensorDataset

from reprolab.callbacks import FiniteLossGuard, LastCheckpoint
from reprolab.cli.errors import NonFiniteLossError
from tests.core.test_checkpoint import VAL_LOSSES, Scripted


class NaNFromStep(Scripted):
    def __init__(self, nan_at_step: int):
        super().__init__()
        self.nan_at_step = nan_at_step

    def training_step(self, batch, batch_idx):
        loss = super().training_step(batch, batch_idx)
        return loss * torch.nan if self.global_step >= self.nan_at_step else loss


def fit(tmp_path, model, write_interval_s, guard=None, **trainer_kwargs):
    torch.manual_seed(0)
    data = TensorDataset(torch.randn(8, 4), torch.randn(8, 1))
    best = ModelCheckpoint(dirpath=tmp_path / "ckpt", filename="best-{step}", monitor="val/loss", mode="min")
    last = LastCheckpoint(tmp_path / "ckpt", write_interval_s=write_interval_s)
    trainer = L.Trainer(logger=False, callbacks=[best, last, guard or FiniteLossGuard()], enable_progress_bar=False,
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


@pytest.mark.parametrize(("write_interval_s", "last_step"), [(0, 4), (3600, 1)])
def test_a_nan_leaves_last_from_a_validation_before_it(tmp_path, write_interval_s, last_step):
    """Validations after steps 1..4 (loss 3, 1, 2, 4: the best is step 2); the loss turns NaN at step 4. last.ckpt is
    the latest validation's (interval 0) or the first one's (nothing was due since)."""
    with pytest.raises(NonFiniteLossError, match=r"at step 4 .*last.ckpt"):
        fit(tmp_path, NaNFromStep(nan_at_step=4), write_interval_s, max_steps=10, val_check_interval=1,
            check_val_every_n_epoch=None)
    assert load(tmp_path / "ckpt" / "last.ckpt")["global_step"] == last_step
    assert load(tmp_path / "ckpt" / "best-step=2.ckpt")["global_step"] == 2


def test_a_deferred_check_stops_at_its_next_read_and_writes_no_checkpoint_of_the_bad_steps(tmp_path):
    """Off the CPU the flag stays on the device and is read every `check_every_n_steps` and before a validation; here
    (deferred on the CPU) the loss turns NaN at step 4, just after the read at the end of epoch 2 (2 steps an epoch),
    and is read after step 5, before the validation of step 6."""
    guard = FiniteLossGuard(check_every_n_steps=3, deferred=True)
    with pytest.raises(NonFiniteLossError, match=r"between steps 4 and 5 .*last.ckpt"):
        fit(tmp_path, NaNFromStep(nan_at_step=4), 0, guard=guard, max_steps=10, val_check_interval=3,
            check_val_every_n_epoch=None)
    assert load(tmp_path / "ckpt" / "last.ckpt")["global_step"] == 3  # the validation before the NaN


def test_a_deferred_check_reads_its_flag_before_a_validation(tmp_path):
    guard = FiniteLossGuard(check_every_n_steps=100, deferred=True)
    with pytest.raises(NonFiniteLossError, match="between steps 4 and 5"):  # read at the epoch end (4), then before validating
        fit(tmp_path, NaNFromStep(nan_at_step=4), 0, guard=guard, max_steps=10, val_check_interval=5,
            check_val_every_n_epoch=None)
    assert not (tmp_path / "ckpt").exists() or not list((tmp_path / "ckpt").glob("*.ckpt"))
