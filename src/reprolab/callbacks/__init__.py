"""Callbacks shared by every experiment."""

from reprolab.callbacks.checkpoint import BufferedCheckpoint
from reprolab.callbacks.finite_loss import FiniteLossGuard
from reprolab.callbacks.progress_log import ProgressLog
from reprolab.callbacks.rng_state import RNGStateCheckpoint
from reprolab.callbacks.step_timer import StepTimer

__all__ = ["BufferedCheckpoint", "FiniteLossGuard", "ProgressLog", "RNGStateCheckpoint", "StepTimer"]
