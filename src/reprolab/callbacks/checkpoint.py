"""Lightning's ModelCheckpoint (best by the monitor, and `last.ckpt`) that writes at most every N seconds.

Lightning writes the new best file and `last.ckpt` at every validation, which on a small CPU run costs
~5% of the run. Here each is kept as an in-memory CPU copy and removals wait; every
`write_interval_s` seconds (checked at validation ends, so every rank decides alike) and always when
training ends, and when the run stops on an exception, the folder is brought to the state Lightning would
have left: the best file(s), and `last.ckpt` (every RNG included) which names them, both as of the latest
validation (at the end: the final state). A run killed without an exception (SIGKILL, a lost node)
resumes from the previous write. `write_interval_s=0` writes at every validation, as Lightning does.
Every file is written to a temporary name and renamed (`AtomicCheckpointIO`), so none is ever truncated.

`last.ckpt` is the state at the end of every validation interval (of every training epoch when nothing is
validated) and at the end of fit, in both modes: Lightning ≥ 2.5 refreshes it only when a top-k file was
saved at the same step, so a validation that did not improve would leave it one interval (or more) behind.
"""

from __future__ import annotations

import os
from pathlib import Path
from time import monotonic
from weakref import proxy

import lightning as L
import torch
from lightning.fabric.plugins import TorchCheckpointIO
from lightning.fabric.utilities.apply_func import apply_to_collection
from lightning.pytorch.callbacks import ModelCheckpoint
from torch import Tensor


class BufferedCheckpoint(ModelCheckpoint):
    def __init__(self, *args, write_interval_s: float = 300.0, **kwargs):
        super().__init__(*args, **kwargs)
        self.write_interval_s = 0.0 if self.save_last == "link" else float(write_interval_s)
        self._pending: dict[str, dict] = {}  # file → its checkpoint at the validation that asked (CPU copy)
        self._removals: set[str] = set()
        self._written_at = monotonic()

    def setup(self, trainer: L.Trainer, pl_module: L.LightningModule, stage: str) -> None:
        """Checkpoints are written atomically (`AtomicCheckpointIO`) unless the strategy brings its own writer."""
        super().setup(trainer, pl_module, stage)
        if type(trainer.strategy.checkpoint_io) is TorchCheckpointIO:
            trainer.strategy.checkpoint_io = AtomicCheckpointIO()

    @property
    def pending(self) -> list[str]:
        """Files that will be written (at the next due write, at the end, or on an exception)."""
        return list(self._pending)

    def _save_checkpoint(self, trainer: L.Trainer, filepath: str) -> None:
        if self.write_interval_s <= 0:
            return super()._save_checkpoint(trainer, filepath)
        checkpoint = trainer._checkpoint_connector.dump_checkpoint(self.save_weights_only)
        self._pending[filepath] = cpu_copy(checkpoint)
        self._removals.discard(filepath)
        self._last_global_step_saved = trainer.global_step
        self._last_checkpoint_saved = filepath

    def _remove_checkpoint(self, trainer: L.Trainer, filepath: str) -> None:
        if self.write_interval_s <= 0:
            return super()._remove_checkpoint(trainer, filepath)
        if self._pending.pop(filepath, None) is None:
            self._removals.add(filepath)

    def write(self, trainer: L.Trainer) -> None:
        """Put what waits on disk (rank 0 writes; no collective, so it is safe on an exception)."""
        for path, checkpoint in self._pending.items():
            trainer.strategy.save_checkpoint(checkpoint, path)
        for path in self._removals:
            trainer.strategy.remove_checkpoint(path)
        if self._pending and trainer.is_global_zero:
            for logger in trainer.loggers:
                logger.after_save_checkpoint(proxy(self))
        self._pending, self._removals = {}, set()
        self._written_at = monotonic()

    def _write_if_due(self, trainer: L.Trainer) -> None:
        if self.write_interval_s <= 0 or not (self._pending or self._removals):
            return
        if trainer.strategy.broadcast(monotonic() - self._written_at >= self.write_interval_s, src=0):
            self.write(trainer)

    def _refresh_last(self, trainer: L.Trainer) -> None:
        """`last.ckpt` := now, unless this step was saved already (Lightning saves it with a new top-k file)."""
        if self.save_last is True and not self._should_skip_saving_checkpoint(trainer):
            self._save_last_checkpoint(trainer, self._monitor_candidates(trainer))

    def on_validation_end(self, trainer: L.Trainer, pl_module: L.LightningModule) -> None:
        super().on_validation_end(trainer, pl_module)
        if not self._should_save_on_train_epoch_end(trainer):
            self._refresh_last(trainer)
        self._write_if_due(trainer)

    def on_train_epoch_end(self, trainer: L.Trainer, pl_module: L.LightningModule) -> None:
        super().on_train_epoch_end(trainer, pl_module)
        if self._should_save_on_train_epoch_end(trainer):
            self._refresh_last(trainer)
        self._write_if_due(trainer)

    def on_train_end(self, trainer: L.Trainer, pl_module: L.LightningModule) -> None:
        """`last.ckpt` = the state training ended in (loop counters included, so a resume knows it is done)."""
        if self.save_last is True and not trainer.fast_dev_run and trainer.global_step > 0:
            self._save_last_checkpoint(trainer, self._monitor_candidates(trainer))
        super().on_train_end(trainer, pl_module)
        if self.write_interval_s > 0:
            self.write(trainer)

    def on_exception(self, trainer: L.Trainer, pl_module: L.LightningModule, exception: BaseException) -> None:
        """The files Lightning would have left: those of the last validation (a NaN step never reaches them)."""
        super().on_exception(trainer, pl_module, exception)
        if self.write_interval_s > 0:
            self.write(trainer)


def _tensor_copy(tensor: Tensor) -> Tensor:
    return tensor.detach().to("cpu", copy=True)


def cpu_copy(value):
    """`apply_to_collection(value, Tensor, <CPU copy>)`, walking plain dicts, lists and tuples itself (0.2 ms for a
    small model's checkpoint, whose loop states are deep dicts of counters, against Lightning's generic 1 ms, paid
    at every improved validation); any other container still goes through Lightning's walk."""
    if isinstance(value, Tensor):
        return _tensor_copy(value)
    kind = type(value)
    if kind is dict:
        return {key: cpu_copy(item) for key, item in value.items()}
    if kind is list or kind is tuple:
        return kind(cpu_copy(item) for item in value)
    if value is None or kind in (int, float, str, bool):
        return value
    return apply_to_collection(value, Tensor, _tensor_copy)


class AtomicCheckpointIO(TorchCheckpointIO):
    """`torch.save` into a temporary file beside the target, then a rename: a crash or a full disk leaves the
    previous checkpoint or none, never a truncated one (Lightning's own write goes through the system temp
    folder, a copy, not a rename, when that lies on another disk). Remote paths keep Lightning's way."""

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
