"""DeltaAdamW under DDP (2 CPU processes, gloo): Grams and key counts are summed over ranks, so two ranks
with half a batch each take exactly the step one process takes on the whole batch."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
import torch.distributed as dist
import torch.multiprocessing as mp
import torch.nn.functional as F
from torch import nn
from torch.nn.parallel import DistributedDataParallel

from reprolab.optim.delta import DeltaAdamW


def _data():
    g = torch.Generator().manual_seed(1)
    return torch.randn(3, 8, 6, generator=g), torch.randn(3, 8, 2, generator=g)


def _model():
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(6, 5), nn.Tanh(), nn.Linear(5, 2))


def _train(model, forward, xs, ys):
    opt = DeltaAdamW(model, lr=1e-2, eta=0.7, weight_decay=0.0)
    for x, y in zip(xs, ys, strict=True):
        F.mse_loss(forward(x), y).backward()
        opt.step()
        opt.zero_grad()
    return model


def _worker(rank, world, init_file, out_file):
    dist.init_process_group("gloo", init_method=f"file://{init_file}", rank=rank, world_size=world)
    torch.set_num_threads(1)
    xs, ys = _data()
    model = _model()
    ddp = DistributedDataParallel(model)
    half = slice(4 * rank, 4 * rank + 4)
    _train(model, ddp, xs[:, half], ys[:, half])
    if rank == 0:
        torch.save(model.state_dict(), out_file)
    dist.destroy_process_group()


@pytest.mark.slow
def test_ddp_two_ranks_equal_one_process_on_the_whole_batch(tmp_path, monkeypatch):
    monkeypatch.syspath_prepend(str(Path(__file__).resolve().parents[3]))  # spawned ranks import this file
    mp.spawn(_worker, args=(2, str(tmp_path / "init"), str(tmp_path / "ddp.pt")), nprocs=2, join=True)
    xs, ys = _data()
    single = _model()
    _train(single, single, xs, ys)
    ddp_state = torch.load(tmp_path / "ddp.pt")
    for name, p in single.state_dict().items():
        torch.testing.assert_close(ddp_state[name], p, atol=1e-6, rtol=1e-5, msg=name)
