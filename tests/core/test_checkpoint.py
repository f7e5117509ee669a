"""BufferedCheckpoint: the files Lightning's ModelCheckpoint leaves, written at most every N seconds."""

from __future__ import annotations

import lightning as L
import torch
from lightning.pytorch.callbacks import ModelCheckpoint
from torch.utils.data import DataLoader, TensorDataset

from reprolab.callbacks import BufferedCheckpoint

VAL_LOSSES = [3.0, 1.0, 2.0, 4.0, 5.0]  # by validation: the best is the 2nd (step 2)


class Scripted(L.LightningModule):
    """A linear model whose validation loss follows VAL_LOSSES, so the best step is known."""

    def __init__(self):
        super().__init__()
        self.layer = torch.nn.Linear(4, 1)
        self.validations = 0

    def training_step(self, batch, batch_idx):
        x, y = batch
        return torch.nn.functional.mse_loss(self.layer(x), y)

    def validation_step(self, batch, batch_idx):
        self.log("val/loss", VAL_LOSSES[self.validations])

    def on_validation_epoch_end(self):
        self.validations += 1

    def configure_optimizers(self):
        return torch.optim.SGD(self.parameters(), lr=0.1)


class DiskWatcher(L.Callback):
    """What the checkpoint folder holds after each validation but the last (read at the next step, since
    Lightning runs checkpoint callbacks after all others)."""

    def __init__(self, folder):
        self.folder, self.seen = folder, []

    def on_train_batch_start(self, trainer, pl_module, batch, batch_idx):
        if trainer.global_step > 0:
            self.seen.append(sorted(p.name for p in self.folder.glob("*.ckpt")))


def fit(tmp_path, checkpoint):
    torch.manual_seed(0)
    data = TensorDataset(torch.randn(32, 4), torch.randn(32, 1))
    watcher = DiskWatcher(tmp_path / "ckpt")
    trainer = L.Trainer(max_steps=len(VAL_LOSSES), val_check_interval=1, check_val_every_n_epoch=None,
                        limit_val_batches=1, logger=False,
                        callbacks=[checkpoint, watcher], enable_progress_bar=False, enable_model_summary=False,
                        num_sanity_val_steps=0, default_root_dir=tmp_path)
    model = Scripted()
    trainer.fit(model, DataLoader(data, batch_size=4), DataLoader(data, batch_size=32))
    return trainer, model, watcher.seen


def kwargs(tmp_path):
    return dict(dirpath=tmp_path / "ckpt", filename="best-{step}", monitor="val/loss", mode="min", save_last=True,
                save_top_k=1)


def test_nothing_reaches_disk_before_the_end_then_the_same_files_as_lightning(tmp_path):
    trainer, model, seen = fit(tmp_path / "buffered", BufferedCheckpoint(**kwargs(tmp_path / "buffered"),
                                                                       write_interval_s=3600))
    _, _, seen_lightning = fit(tmp_path / "lightning", ModelCheckpoint(**kwargs(tmp_path / "lightning")))
    assert all(files == [] for files in seen)  # every validation ran without a write
    files = sorted(p.name for p in (tmp_path / "buffered" / "ckpt").glob("*.ckpt"))
    lightning_files = sorted(p.name for p in (tmp_path / "lightning" / "ckpt").glob("*.ckpt"))
    assert files == lightning_files == ["best-step=2.ckpt", "last.ckpt"]
    assert seen_lightning[-1] == ["best-step=2.ckpt", "last.ckpt"]  # Lightning wrote at every validation

    best = torch.load(tmp_path / "buffered" / "ckpt" / "best-step=2.ckpt", weights_only=False)
    reference = torch.load(tmp_path / "lightning" / "ckpt" / "best-step=2.ckpt", weights_only=False)
    assert best["global_step"] == 2  # the state at the best validation, not at the write
    for key, value in reference["state_dict"].items():
        assert torch.equal(best["state_dict"][key], value)
    last = torch.load(tmp_path / "buffered" / "ckpt" / "last.ckpt", weights_only=False)
    assert last["global_step"] == len(VAL_LOSSES)
    for key, value in model.state_dict().items():
        assert torch.equal(last["state_dict"][key], value)
    state = next(v for k, v in last["callbacks"].items() if "BufferedCheckpoint" in k)
    assert state["best_model_path"].endswith("best-step=2.ckpt") and float(state["best_model_score"]) == 1.0
    assert trainer.checkpoint_callback.best_model_path.endswith("best-step=2.ckpt")


def test_interval_zero_writes_at_every_validation_as_lightning_does(tmp_path):
    _, _, seen = fit(tmp_path / "a", BufferedCheckpoint(**kwargs(tmp_path / "a"), write_interval_s=0))
    _, _, seen_lightning = fit(tmp_path / "b", ModelCheckpoint(**kwargs(tmp_path / "b")))
    assert seen == seen_lightning
    assert seen[0] == ["best-step=1.ckpt", "last.ckpt"]


def test_a_due_write_brings_the_folder_to_the_state_of_that_validation(tmp_path, monkeypatch):
    clock = iter(range(0, 10_000, 100))  # 100 s pass between consecutive reads of the clock
    monkeypatch.setattr("reprolab.callbacks.checkpoint.monotonic", lambda: next(clock))
    _, _, seen = fit(tmp_path, BufferedCheckpoint(**kwargs(tmp_path), write_interval_s=150))
    assert seen[0] == []  # 100 s after the start: not yet
    assert seen[1] == ["best-step=2.ckpt", "last.ckpt"]  # the first best (step 1) never reached disk


def test_no_model_checkpoint_in_the_config_means_no_checkpoint_files(tmp_path):
    """`callbacks.model_checkpoint=null` must not bring back Lightning's default ModelCheckpoint (which would
    write `epoch=…ckpt` at every validation); the default callbacks still checkpoint."""
    from reprolab.config.compose import compose
    from reprolab.run.trainer import build_trainer

    overrides = ["experiment=cifar10/small_sgd_cpu", "logger=none", f"paths.output_dir={tmp_path}"]
    without = build_trainer(compose([*overrides, "callbacks.model_checkpoint=null"]))
    assert without.checkpoint_callback is None
    assert not any(isinstance(c, ModelCheckpoint) for c in without.callbacks)
    with_default = build_trainer(compose(overrides))
    assert isinstance(with_default.checkpoint_callback, BufferedCheckpoint)
