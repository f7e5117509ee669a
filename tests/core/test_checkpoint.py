"""LastCheckpoint beside Lightning's ModelCheckpoint: the best file as Lightning writes it, and `last.ckpt` at the
latest validation once `write_interval_s` has passed, and at the end of training."""

from __future__ import annotations

import lightning as L
import torch
from lightning.pytorch.callbacks import ModelCheckpoint
from torch.utils.data import DataLoader, TensorDataset

from reprolab.callbacks import LastCheckpoint

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


def fit(tmp_path, *checkpoints):
    torch.manual_seed(0)
    data = TensorDataset(torch.randn(32, 4), torch.randn(32, 1))
    watcher = DiskWatcher(tmp_path / "ckpt")
    trainer = L.Trainer(max_steps=len(VAL_LOSSES), val_check_interval=1, check_val_every_n_epoch=None,
                        limit_val_batches=1, logger=False,
                        callbacks=[*checkpoints, watcher], enable_progress_bar=False, enable_model_summary=False,
                        num_sanity_val_steps=0, default_root_dir=tmp_path)
    model = Scripted()
    trainer.fit(model, DataLoader(data, batch_size=4), DataLoader(data, batch_size=32))
    return trainer, model, watcher.seen


def best(tmp_path):
    return ModelCheckpoint(dirpath=tmp_path / "ckpt", filename="best-{step}", monitor="val/loss", mode="min",
                           save_top_k=1)


def test_last_is_the_final_state_and_best_the_best_validations_though_late_ones_did_not_improve(tmp_path):
    trainer, model, seen = fit(tmp_path, best(tmp_path), LastCheckpoint(tmp_path / "ckpt", write_interval_s=3600))
    assert seen[0] == ["best-step=1.ckpt", "last.ckpt"]  # the first validation writes both
    assert seen[2] == ["best-step=2.ckpt", "last.ckpt"]  # within the interval: last.ckpt is not rewritten
    last = torch.load(tmp_path / "ckpt" / "last.ckpt", weights_only=False)
    assert last["global_step"] == len(VAL_LOSSES)  # the end of training, though validations 3-5 did not improve
    for key, value in model.state_dict().items():
        assert torch.equal(last["state_dict"][key], value)
    state = next(v for k, v in last["callbacks"].items() if k.startswith("ModelCheckpoint"))
    assert state["best_model_path"].endswith("best-step=2.ckpt") and float(state["best_model_score"]) == 1.0
    assert torch.load(tmp_path / "ckpt" / "best-step=2.ckpt", weights_only=False)["global_step"] == 2
    assert trainer.checkpoint_callback.best_model_path.endswith("best-step=2.ckpt")


def test_interval_zero_writes_last_at_every_validation(tmp_path, monkeypatch):
    steps = []
    save = L.Trainer.save_checkpoint
    monkeypatch.setattr(L.Trainer, "save_checkpoint", lambda self, path, *a, **k: (
        steps.append((self.global_step, str(path).rsplit("/", 1)[-1])), save(self, path, *a, **k))[1])
    fit(tmp_path, best(tmp_path), LastCheckpoint(tmp_path / "ckpt", write_interval_s=0))
    lasts = [step for step, name in steps if name == "last.ckpt"]
    assert lasts == [1, 2, 3, 4, 5, 5]  # each validation, then the end of training


def test_a_due_write_follows_the_clock(tmp_path, monkeypatch):
    clock = iter(range(0, 10_000, 100))  # 100 s pass between consecutive reads of the clock
    monkeypatch.setattr("reprolab.callbacks.checkpoint.monotonic", lambda: next(clock))
    steps = []
    save = LastCheckpoint.save
    monkeypatch.setattr(LastCheckpoint, "save", lambda self, trainer: steps.append(trainer.global_step) or save(self, trainer))
    fit(tmp_path, LastCheckpoint(tmp_path / "ckpt", write_interval_s=150))
    assert steps[0] == 1 and steps[-1] == len(VAL_LOSSES)
    assert steps[1:-1] and all(b - a >= 2 for a, b in zip(steps[:-2], steps[1:-1], strict=True))  # >= 150 s apart


def test_no_checkpoint_callbacks_in_the_config_means_no_checkpoint_files(tmp_path):
    """`callbacks.model_checkpoint=null callbacks.last_checkpoint=null` must not bring back Lightning's default
    ModelCheckpoint (which would write `epoch=…ckpt` at every validation); the default callbacks still checkpoint."""
    from reprolab.config.compose import compose
    from reprolab.run.trainer import build_trainer

    overrides = ["experiment=cifar10/small_sgd_cpu", "logger=none", f"paths.output_dir={tmp_path}"]
    without = build_trainer(compose([*overrides, "callbacks.model_checkpoint=null", "callbacks.last_checkpoint=null"]))
    assert without.checkpoint_callback is None
    assert not any(isinstance(c, ModelCheckpoint | LastCheckpoint) for c in without.callbacks)
    with_default = build_trainer(compose(overrides))
    assert isinstance(with_default.checkpoint_callback, ModelCheckpoint)
    assert any(isinstance(c, LastCheckpoint) for c in with_default.callbacks)
    off = build_trainer(compose([*overrides, "++trainer.enable_checkpointing=false"]))
    assert off.checkpoint_callbacks == []  # Lightning refuses checkpoint callbacks with checkpointing off
