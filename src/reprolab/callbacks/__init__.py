"""Callbacks shared by every experiment."""

from reprolab.callbacks.checkpoint import LastCheckpoint
from reprolab.callbacks.finite_loss import FiniteLossGuard
from reprolab.callbacks.lost_rank import LostRankExit
from reprolab.callbacks.progress_log import ProgressLog
from reprolab.callbacks.requeue import RequeueCheckpoint
from reprolab.callbacks.rng_state import RNGStateCheckpoint
from reprolab.callbacks.step_timer import StepTimer

__all__ = ["LastCheckpoint", "FiniteLossGuard", "LostRankExit", "ProgressLog", "RequeueCheckpoint",
           "RNGStateCheckpoint", "StepTimer"]
