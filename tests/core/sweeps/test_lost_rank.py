"""LostRankExit recognises a failed collective (and nothing else); device=ddp_cpu carries the process-group
timeout that turns a silent rank into one (the processes themselves: test_ddp_faults_slow.py)."""

from __future__ import annotations

from datetime import timedelta
from types import SimpleNamespace

import torch.distributed as dist
from hydra.utils import instantiate
from lightning.pytorch.strategies import DDPStrategy

from reprolab.callbacks.lost_rank import LostRankExit, is_lost_peer, reason
from reprolab.config.compose import compose

GLOO_RESET = ("[/__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:545] Read error [127.0.0.1]:3998: "
              "Connection reset by peer. This is typically caused by a remote worker hanging or bugs in the application.")
GLOO_TIMEOUT = "[../third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:81] Timed out waiting 40000ms for recv operation to complete"


def test_a_dropped_or_silent_peer_is_recognised_and_said_in_a_few_words():
    assert is_lost_peer(RuntimeError(GLOO_RESET)) and is_lost_peer(RuntimeError(GLOO_TIMEOUT))
    assert is_lost_peer(dist.DistBackendError("NCCL error: remote process exited"))
    assert reason(RuntimeError(GLOO_RESET)) == "Read error [127.0.0.1]:3998: Connection reset by peer"
    assert reason(RuntimeError(GLOO_TIMEOUT)) == "Timed out waiting 40000ms for recv operation to complete"


def test_other_errors_and_single_process_runs_go_their_usual_way():
    assert not is_lost_peer(RuntimeError("mat1 and mat2 shapes cannot be multiplied"))
    assert not is_lost_peer(ValueError("Connection reset by peer"))  # only a collective's RuntimeError
    single = SimpleNamespace(world_size=1)
    assert LostRankExit().on_exception(single, None, RuntimeError(GLOO_RESET)) is None  # returned: no exit


def test_ddp_cpu_gives_the_process_group_device_timeout_s():
    cfg = compose(["device=ddp_cpu", "device.timeout_s=7"])
    strategy = instantiate(cfg.trainer.strategy)
    assert isinstance(strategy, DDPStrategy) and strategy._timeout == timedelta(seconds=7)
    assert cfg.trainer.sync_batchnorm is False  # SyncBatchNorm refuses CPU modules
