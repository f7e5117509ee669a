"""`last.ckpt` through Lightning's public API, beside Lightning's own ModelCheckpoint for the best file.

The best file by the monitor is Lightning's `ModelCheckpoint` as it comes (conf/callbacks/default.yaml). It writes
`last.ckpt` only when a new best is saved at the same step (Lightning >= 2.5), so a run whose late validations did
not improve would resume from an old state; `LastCheckpoint` writes `last.ckpt` itself with
`trainer.save_checkpoint`: at the end of a validation (of a training epoch when nothing is validated) once
`write_interval_s` seconds have passed since its last write (0: at every one), and always when training ends or a
SIGTERM stops it. A crash, a kill or a non-finite loss can so lose at most `write_interval_s` of training; the best file is on disk
from the validation that made it. Every file is written to a temporary name and renamed (`AtomicCheckpointIO`), so
none is ever truncated.
"""

from __future__ import annotations

import os
from pathlib import Path
from time import monotonic

import lightning as L
import torch
from lightning.fabric.plugins import TorchCheckpointIO
from lightning.pytorch.callbacks import Checkpoint
from lightning.pytorch.utilities.exceptions import SIGTERMException


class LastCheckpoint(Checkpoint):
    """`<dirpath>/last.ckpt`, the state to resume from. A `Checkpoint`, so Lightning runs it after the other
    callbacks (and after a ModelCheckpoint listed before it), and its file holds their states of this step."""

    def __init__(self, dirpath: str | Path, write_interval_s: float = 300.0, filename: str = "last.ckpt"):
        self.dirpath = Path(dirpath)
        self.write_interval_s = float(write_interval_s)
        self.last_model_path = str(self.dirpath / filename)
        self._written_at: float | None = None  # None: nothing written by this run yet

    def save(self, trainer: L.Trainer) -> str:
        """Write `last.ckpt` of this step now (every rank calls it: the strategy decides who writes)."""
        trainer.save_checkpoint(self.last_model_path)
        self._written_at = monotonic()
        return self.last_model_path

    def _saving(self, trainer: L.Trainer) -> bool:
        return trainer.state.fn == "fit" and not trainer.sanity_checking \
            and not trainer.fast_dev_run and trainer.global_step > 0

    def _save_if_due(self, trainer: L.Trainer) -> None:
        if not self._saving(trainer):
            return
        waited = float("inf") if self._written_at is None else monotonic() - self._written_at
        if trainer.strategy.broadcast(waited >= self.write_interval_s, src=0):  # every rank decides alike
            self.save(trainer)

    def on_validation_end(self, trainer: L.Trainer, pl_module: L.LightningModule) -> None:
        self._save_if_due(trainer)

    def on_train_epoch_end(self, trainer: L.Trainer, pl_module: L.LightningModule) -> None:
        if not trainer.enable_validation:  # no validation to wait for: the epoch's end is the boundary
            self._save_if_due(trainer)

    def on_train_end(self, trainer: L.Trainer, pl_module: L.LightningModule) -> None:
        """`last.ckpt` = the state training ended in (loop counters included, so a resume knows it is done)."""
        if not trainer.fast_dev_run and trainer.global_step > 0:
            self.save(trainer)

    def on_exception(self, trainer: L.Trainer, pl_module: L.LightningModule, exception: BaseException) -> None:
        """A SIGTERM (a scheduler's stop; Lightning raises it at the next step) stops a healthy run: save it now.
        Any other error (a non-finite loss, a bug) keeps the last file written before it."""
        if isinstance(exception, SIGTERMException) and trainer.global_step > 0 and not trainer.fast_dev_run:
            self.save(trainer)

    def state_dict(self) -> dict:
        return {"last_model_path": self.last_model_path}


class AtomicCheckpointIO(TorchCheckpointIO):
    """`torch.save` into a temporary file beside the target, then a rename: a crash or a full disk leaves the
    previous checkpoint or none, never a truncated one. Remote paths keep Lightning's way."""

    def save_checkpoint(self, checkpoint: dict, path, storage_options=None) -> None:
        if "://" in str(path):
            return super().save_checkpoint(checkpoint, path, storage_options)
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        try:
            with open(tmp, "wb") as handle:
                torch.save(checkpoint, handle)
                handle.flush()
                os.fsync(handle.fileno())
            tmp.replace(path)
        except BaseException as err:
            tmp.unlink(missing_ok=True)
            if isinstance(err, OSError) and err.filename in (None, str(tmp)):
                err.filename = str(path)  # the user's file, not our temporary name
            raise
        return None


def write_atomically(trainer: L.Trainer) -> None:
    """Every checkpoint of `trainer` through `AtomicCheckpointIO`, unless its strategy brings its own writer."""
    if type(trainer.strategy.checkpoint_io) is TorchCheckpointIO:
        trainer.strategy.checkpoint_io = AtomicCheckpointIO()


def last_checkpoint_path(trainer: L.Trainer) -> Path:
    """Where this run's `last.ckpt` is (or would be): its LastCheckpoint's, else beside the run's checkpoints."""
    for callback in trainer.checkpoint_callbacks:
        if isinstance(callback, LastCheckpoint):
            return Path(callback.last_model_path)
    dirpath = getattr(trainer.checkpoint_callback, "dirpath", None)
    return Path(dirpath or Path(trainer.default_root_dir, "checkpoints")) / "last.ckpt"
