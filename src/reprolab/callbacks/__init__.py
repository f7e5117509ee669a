"""Callbacks shared by every experiment."""

from reprolab.callbacks.finite_loss import FiniteLossGuard
from reprolab.callbacks.rng_state import RNGStateCheckpoint
from reprolab.callbacks.step_timer import StepTimer

__all__ = ["FiniteLossGuard", "RNGStateCheckpoint", "StepTimer"]
