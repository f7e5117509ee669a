"""Callbacks shared by every experiment."""

from reprolab.callbacks.finite_loss import FiniteLossGuard
from reprolab.callbacks.rng_state import RNGStateCheckpoint

__all__ = ["FiniteLossGuard", "RNGStateCheckpoint"]
