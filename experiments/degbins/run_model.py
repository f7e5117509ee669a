"""The tested DegBins network of a finished run, rebuilt from the run's own folder (for the post-hoc diagnostics).

The model is instantiated from the run's composed config (`<run>/.hydra/config.yaml`, as saved by the trainer) and
given the weights of the checkpoint the run tested (`reprolab.run_folder.run_checkpoint`: `best_ckpt` of its
metrics.json, else `last.ckpt`), loaded with `weights_only=True`. It is returned in eval mode.
"""

from __future__ import annotations

from pathlib import Path

import torch
from hydra.utils import instantiate
from omegaconf import DictConfig, OmegaConf

from reprolab.errors import DatasetNotFoundError
from reprolab.run_folder import run_checkpoint


def load_run_model(run_dir: str | Path) -> tuple[torch.nn.Module, DictConfig]:
    """(the run's network with its tested weights, in eval mode; the run's saved config)."""
    run_dir = Path(run_dir)
    cfg = OmegaConf.load(run_dir / ".hydra" / "config.yaml")
    ckpt = run_checkpoint(run_dir)
    if not ckpt.is_file():
        raise DatasetNotFoundError(f"run '{run_dir}' has no checkpoint at '{ckpt}'; re-run it (its make target) first")
    model = instantiate(cfg.model)
    state = torch.load(ckpt, map_location="cpu", weights_only=True)["state_dict"]
    model.load_state_dict({k.removeprefix("model."): v for k, v in state.items() if k.startswith("model.")})
    return model.eval(), cfg
