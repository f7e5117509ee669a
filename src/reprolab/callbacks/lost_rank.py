"""A distributed run whose peer rank is gone (killed, a lost node, silent past `device.timeout_s`) ends at once.

The collective that waited on the peer fails (gloo: the connection closes, or the process group's timeout
passes). Each surviving rank then writes what the checkpoint callback still buffers, says so in one line and
leaves with `os._exit` (rank 0 first kills the ranks it started): tearing down a process group with a dead member can itself hang, and
Lightning's child-process watcher would otherwise SIGKILL rank 0 mid-message. Rerun with `ckpt_path=` (a
`-m` job: rerun the sweep) to resume from `last.ckpt`.
"""

from __future__ import annotations

import os
import re
import signal
import sys

import lightning as L
import torch.distributed as dist

from reprolab.callbacks.checkpoint import last_checkpoint_path
from reprolab.cli.errors import one_line
from reprolab.run.folder import write_error

EXIT_LOST_RANK = 4
PEER_GONE = ("Connection reset by peer", "Connection closed by peer", "Broken pipe", "Timed out", "timed out",
             "NCCL communicator was aborted", "Watchdog caught collective operation timeout")


def is_lost_peer(err: BaseException) -> bool:
    """A failed collective (torch's DistError, or gloo's RuntimeError naming a dropped or silent peer)."""
    return isinstance(err, dist.DistError) or (isinstance(err, RuntimeError) and any(s in str(err) for s in PEER_GONE))


def reason(err: BaseException) -> str:
    """The error's first line without gloo's source location (`[.../pair.cc:545] `)."""
    return re.sub(r"^\[[^\]]*\]\s*", "", one_line(err)).split(". ")[0][:160]


class LostRankExit(L.Callback):
    multi_process_only = True  # left out of a one-process run (reprolab.run.trainer.build_callbacks)

    def on_exception(self, trainer: L.Trainer, pl_module: L.LightningModule, exception: BaseException) -> None:
        if trainer.world_size < 2 or not is_lost_peer(exception):
            return
        last = last_checkpoint_path(trainer)
        resume = f"resume with ckpt_path={last}" if last.is_file() else "no checkpoint yet: rerun it"
        line = (f"rank {trainer.global_rank} of {trainer.world_size}: another rank is gone, the run stops "
                f"({type(exception).__name__}: {reason(exception)}); {resume}")
        if trainer.is_global_zero:
            write_error(trainer.default_root_dir, f"LostRank: {line}")
        if trainer.strategy.launcher is not None:  # the ranks this process started: none is left waiting
            trainer.strategy.launcher.kill(signal.SIGKILL)
        print(f"error: {line}", file=sys.stderr, flush=True)
        sys.stdout.flush()
        os._exit(EXIT_LOST_RANK)
