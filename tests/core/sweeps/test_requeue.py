"""RequeueCheckpoint: a SIGUSR2 mid-epoch writes last.ckpt of that very step, hands the signal on to the
handler it replaced (submitit's requeue) and stops; a run resumed from the file ends at the unbroken step."""

from __future__ import annotations

import os
import signal

import lightning as L
import pytest
import torch
from lightning.pytorch.callbacks import ModelCheckpoint
from torch.utils.data import DataLoader, TensorDataset

import tests.core.sweeps.fake_train as fake_train
from reprolab.callbacks import LastCheckpoint, RequeueCheckpoint
from reprolab.callbacks.requeue import RequeueRequested
from tests.core.sweeps.fake_train import run_train_cli
from tests.core.sweeps.test_multirun import sweep_args

BATCHES, EPOCHS = 8, 2


class Linear(L.LightningModule):
    def __init__(self):
        super().__init__()
        self.layer = torch.nn.Linear(4, 1)

    def training_step(self, batch, batch_idx):
        x, y = batch
        return torch.nn.functional.mse_loss(self.layer(x), y)

    def validation_step(self, batch, batch_idx):
        x, y = batch
        self.log("val/loss", torch.nn.functional.mse_loss(self.layer(x), y))

    def configure_optimizers(self):
        return torch.optim.SGD(self.parameters(), lr=0.05)


class SignalAt(L.Callback):
    """Sends the process `signum` as global step `step` starts (the scheduler's warning, mid-epoch)."""

    def __init__(self, step: int, signum=signal.SIGUSR2):
        self.step, self.signum = step, signum

    def on_train_batch_start(self, trainer, pl_module, batch, batch_idx):
        if trainer.global_step == self.step:
            os.kill(os.getpid(), self.signum)


def fit(tmp_path, *callbacks, ckpt_path=None) -> L.Trainer:
    torch.manual_seed(0)
    data = TensorDataset(torch.randn(4 * BATCHES, 4), torch.randn(4 * BATCHES, 1))
    best = ModelCheckpoint(dirpath=tmp_path / "checkpoints", monitor="val/loss")
    last = LastCheckpoint(tmp_path / "checkpoints", write_interval_s=300)
    trainer = L.Trainer(max_epochs=EPOCHS, logger=False, enable_progress_bar=False, enable_model_summary=False,
                        num_sanity_val_steps=0, default_root_dir=tmp_path, callbacks=[best, last, *callbacks])
    trainer.fit(Linear(), DataLoader(data, batch_size=4), DataLoader(data, batch_size=32), ckpt_path=ckpt_path,
                weights_only=True)
    return trainer


@pytest.fixture
def install_usr2_handler():
    """Put a handler where submitit's `checkpoint_and_try_requeue` sits in a submitit job; restored after."""
    previous = signal.getsignal(signal.SIGUSR2)
    yield lambda handler: signal.signal(signal.SIGUSR2, handler)
    signal.signal(signal.SIGUSR2, previous)


def test_sigusr2_mid_epoch_writes_that_steps_last_ckpt_then_hands_the_signal_on(tmp_path, install_usr2_handler):
    last = tmp_path / "checkpoints" / "last.ckpt"
    step_on_disk_at_handoff = []

    def submitit_like(signum, frame):
        step_on_disk_at_handoff.append(torch.load(last, weights_only=True)["global_step"])

    install_usr2_handler(submitit_like)
    with pytest.raises(RequeueRequested) as stop:
        fit(tmp_path, RequeueCheckpoint(), SignalAt(BATCHES + 3))
    assert stop.value.signum == signal.SIGUSR2 and stop.value.last == last
    assert step_on_disk_at_handoff == [BATCHES + 4]  # on disk, as of the signalled step, before the handoff
    assert signal.getsignal(signal.SIGUSR2) is submitit_like  # put back
    assert len(list(last.parent.glob("epoch=0-*.ckpt"))) == 1  # the buffered best file was written too

    resumed = fit(tmp_path, RequeueCheckpoint(), ckpt_path=last)
    assert resumed.global_step == EPOCHS * BATCHES  # the unbroken run's count: the epoch is finished, not redone


def test_without_the_callback_sigusr2_reaches_the_old_handler_at_once(tmp_path, install_usr2_handler):
    calls = []
    install_usr2_handler(lambda signum, frame: calls.append(signum))
    fit(tmp_path, SignalAt(3))
    assert calls == [signal.SIGUSR2]


def test_a_job_stopped_for_requeue_exits_140_naming_its_checkpoint(tmp_path, monkeypatch, capsys):
    def stopped(cfg):
        raise RequeueRequested(signal.SIGUSR2, tmp_path / "last.ckpt")

    monkeypatch.setattr(fake_train, "fake_run", stopped)
    assert run_train_cli(monkeypatch, *sweep_args(tmp_path, "seed=0")) == 128 + signal.SIGUSR2
    last = tmp_path / "sweep" / "0" / "checkpoints" / "last.ckpt"
    assert f"stopped by SIGUSR2; resume with ckpt_path={last}" in capsys.readouterr().err
