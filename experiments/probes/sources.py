"""Hidden states of a finished source run: compose its own saved config, load its checkpoint (weights only).

The hidden state is the input of the model's last `nn.Linear`, the final readout layer of Lee & Kondor's
exact setting, captured with a forward hook.
"""

from __future__ import annotations

from pathlib import Path

import torch
from hydra.utils import instantiate
from torch import nn

from reprolab.run.finished_model import load_run_model


def load_source(run_dir: str | Path) -> tuple[nn.Module, object]:
    """(model with the run's tested weights, the run's composed config)."""
    return load_run_model(run_dir, "run its source sweep first ('make claim-probes', or "
                                   "'make reproduce-probes-mnist-transfer' for MNIST) or point data.sources_dir at "
                                   "finished source runs")


def untrained_source(preset: str) -> tuple[nn.Module, object]:
    """(the source preset's model at initialisation, its composed config): a finished run's stand-in (fake data)."""
    from reprolab.data.fake import compose_preset

    cfg = compose_preset([f"experiment={preset}"])
    return instantiate(cfg.model).eval(), cfg


@torch.no_grad()
def readout_inputs(model: nn.Module, x: torch.Tensor, batch_size: int = 1024) -> torch.Tensor:
    """What the last nn.Linear of `model` receives for inputs `x`."""
    readout = [m for m in model.modules() if isinstance(m, nn.Linear)][-1]
    seen = []
    handle = readout.register_forward_hook(lambda module, args, out: seen.append(args[0].detach()))
    try:
        for chunk in torch.split(x, batch_size):
            model(chunk)
    finally:
        handle.remove()
    return torch.cat(seen).double()
