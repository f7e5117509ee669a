"""What a run writes to its log: Lightning's messages and warnings join Hydra's job logging (so `<run>/train.log`
holds them), and the known third-party noise is filtered here, in one place, by exact message."""

from __future__ import annotations

import contextlib
import logging
import re
import warnings

from hydra.core.hydra_config import HydraConfig
from hydra.types import RunMode

LIGHTNING_LOGGERS = ("lightning", "lightning.pytorch", "lightning.fabric")  # each has its own stderr handler
RANK_ZERO_LOGGER = "lightning.pytorch.utilities.rank_zero"  # where Lightning's `rank_zero_info` writes


class _DropMessages(logging.Filter):
    def __init__(self, prefixes: tuple[str, ...]):
        super().__init__()
        self.prefixes = prefixes

    def filter(self, record: logging.LogRecord) -> bool:
        return not str(record.msg).startswith(self.prefixes)


class _LightningInfoToFileOnly(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        return record.levelno >= logging.WARNING or not record.name.startswith("lightning")


def route_library_logs() -> None:
    """Inside a Hydra job, Lightning's loggers hand their records to Hydra's handlers (console and `<job>.log`)
    instead of their own stderr handler, and Python warnings are logged too. In a `-m` sweep, Lightning's info
    lines ("Seed set to 0", "GPU available: …", four or more a job) go to `<job>.log` only, not to the console."""
    if not HydraConfig.initialized():
        return
    for name in LIGHTNING_LOGGERS:
        logger = logging.getLogger(name)
        for handler in [h for h in logger.handlers if type(h) is logging.StreamHandler]:
            logger.removeHandler(handler)
        logger.propagate = True
    logging.captureWarnings(True)
    if HydraConfig.get().mode == RunMode.MULTIRUN:
        for handler in logging.getLogger().handlers:  # Hydra configures them anew for each job
            console = isinstance(handler, logging.StreamHandler) and not isinstance(handler, logging.FileHandler)
            if console and not any(isinstance(f, _LightningInfoToFileOnly) for f in handler.filters):
                handler.addFilter(_LightningInfoToFileOnly())


def silence_known_noise() -> None:
    """Lightning's litlogger advert on every Trainer; torch's LeafSpec deprecation raised inside Lightning's own
    pytree copy (nothing of ours to change); and Lightning's "number of training batches is smaller than the logging
    interval", which every run on a small data set printed (ENB2012's 7 batches: each job of a claim sweep), although
    Lightning counts `log_every_n_steps` over the run's steps, not within an epoch, so those runs log as often."""
    rank_zero = logging.getLogger(RANK_ZERO_LOGGER)
    if not any(isinstance(f, _DropMessages) for f in rank_zero.filters):
        rank_zero.addFilter(_DropMessages(("💡 Tip: For seamless cloud logging",)))
    warnings.filterwarnings("ignore", message=r"`isinstance\(treespec, LeafSpec\)` is deprecated", category=FutureWarning)
    warnings.filterwarnings("ignore", message=r"The number of training batches \(\d+\) is smaller than the logging interval")


def silence_checkpoint_dirpath_warning() -> None:
    """For `reprolab-eval` only: testing a checkpoint writes none, so ModelCheckpoint's "dirpath has changed"
    (its best-k state is not restored) says nothing; when training resumes elsewhere it does, and stays."""
    warnings.filterwarnings("ignore", message="The dirpath has changed from", category=UserWarning)


@contextlib.contextmanager
def expected_warnings(task):
    """While `task` fits or tests: Lightning's warnings that its design makes true every time (its class attribute
    `expected_warnings`, message prefixes), e.g. "configure_optimizers returned None" for a scikit-learn estimator,
    are not shown; any other task keeps them (a network with no optimizer is a mistake worth a warning)."""
    with warnings.catch_warnings():
        for prefix in getattr(task, "expected_warnings", ()):
            warnings.filterwarnings("ignore", message=re.escape(prefix))
        yield
