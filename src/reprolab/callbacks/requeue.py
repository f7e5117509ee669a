"""On the scheduler's requeue signal, write `last.ckpt` of the current step and stop, so the requeued job resumes.

SLURM sends it `signal_delay_s` before the time limit (submitit asks for `--signal=USR2@<delay>`) and,
where the cluster is set up so, on preemption. The handler only notes the signal; at the next
`on_train_batch_end` (Lightning's own place for a mid-epoch checkpoint, agreed by every rank) the run
writes `checkpoints/last.ckpt` of this step, then hands
the signal to the handler it replaced (submitit's: requeue the job and exit) and otherwise stops with
`RequeueRequested` (exit 128 + signal). A `-m` job started again in the same folder resumes from that file.
"""

from __future__ import annotations

import signal
import threading
from pathlib import Path

import lightning as L
from lightning.pytorch.utilities.exceptions import SIGTERMException

from reprolab.callbacks.checkpoint import LastCheckpoint, last_checkpoint_path


class RequeueRequested(SIGTERMException):
    """The run stopped on a requeue signal after writing `last.ckpt`; `signum` gives the exit code 128 + signum."""

    def __init__(self, signum: int, last: Path):
        super().__init__(f"{signal.Signals(signum).name} (requeue): last.ckpt written at this step")
        self.signum, self.last = signum, last


class RequeueCheckpoint(L.Callback):
    def __init__(self, signal_name: str = "SIGUSR2"):
        self.signum = signal.Signals[signal_name if signal_name.startswith("SIG") else f"SIG{signal_name}"]
        self.received = False
        self._replaced = None  # the handler ours stands in for while fitting (submitit's, or the default)

    def on_train_start(self, trainer: L.Trainer, pl_module: L.LightningModule) -> None:
        """After Lightning's own signal set-up, whose snapshot it restores at its teardown (so not ours)."""
        if threading.current_thread() is threading.main_thread():
            self.received = False
            self._replaced = signal.signal(self.signum, self._note)

    def on_train_end(self, trainer: L.Trainer, pl_module: L.LightningModule) -> None:
        self._restore()

    def on_exception(self, trainer: L.Trainer, pl_module: L.LightningModule, exception: BaseException) -> None:
        self._restore()

    def _restore(self) -> None:
        if self._replaced is not None:
            signal.signal(self.signum, self._replaced)
            self._replaced = None

    def _note(self, signum, frame) -> None:
        self.received = True

    def on_train_batch_end(self, trainer: L.Trainer, pl_module: L.LightningModule, outputs, batch, batch_idx) -> None:
        if not trainer.strategy.reduce_boolean_decision(self.received, all=False):  # any rank signalled: all stop
            return
        last = write_last_checkpoint(trainer)
        replaced = self._replaced
        self._restore()
        if callable(replaced):
            replaced(self.signum, None)  # submitit: pickles the job for its restart, requeues it, sys.exit
        raise RequeueRequested(self.signum, last)


def write_last_checkpoint(trainer: L.Trainer) -> Path:
    """Save `last.ckpt` of this step now, where the run's LastCheckpoint keeps it (or beside its checkpoints)."""
    for callback in trainer.checkpoint_callbacks:
        if isinstance(callback, LastCheckpoint):
            return Path(callback.save(trainer))
    last = last_checkpoint_path(trainer)
    trainer.save_checkpoint(last)
    return last
