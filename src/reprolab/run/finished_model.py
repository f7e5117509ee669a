"""A finished run's network, from its own folder: for post-hoc analyses and for later stages that start from it.

`model_state` reads a Lightning checkpoint (`weights_only=True`) and keeps the task's `model.` weights, renamed for the
bare network; `load_run_model` instantiates the network from the run's composed config (`<run>/.hydra/config.yaml`)
and gives it the checkpoint the run tested (`run_folder.run_checkpoint`).
"""

from __future__ import annotations

from pathlib import Path

import torch
from hydra.utils import instantiate
from omegaconf import DictConfig, OmegaConf

from reprolab.cli.errors import ConfigError, DatasetNotFoundError
from reprolab.run.folder import run_checkpoint


def model_state(ckpt: str | Path) -> dict[str, torch.Tensor]:
    """The `model.` weights of a task checkpoint, without that prefix (the LightningModule holds its net as `model`)."""
    state = torch.load(ckpt, map_location="cpu", weights_only=True)["state_dict"]
    return {k.removeprefix("model."): v for k, v in state.items() if k.startswith("model.")}


def load_run_model(run_dir: str | Path, to_make_it: str = "re-run it first") -> tuple[torch.nn.Module, DictConfig]:
    """(the run's network with its tested weights, in eval mode; the run's saved config). A run without its config or
    checkpoint is a DatasetNotFoundError that names the run and ends with `to_make_it` (what makes the run)."""
    run_dir = Path(run_dir)
    config = run_dir / ".hydra" / "config.yaml"
    if not config.is_file():
        raise DatasetNotFoundError(f"run '{run_dir}' has no .hydra/config.yaml; {to_make_it}")
    ckpt = run_checkpoint(run_dir)
    if not ckpt.is_file():
        raise DatasetNotFoundError(f"run '{run_dir}' has no checkpoint at '{ckpt}'; {to_make_it}")
    cfg = OmegaConf.load(config)
    model = instantiate(cfg.model)
    model.load_state_dict(model_state(ckpt))
    return model.eval(), cfg


def load_initial_weights(model: torch.nn.Module, init_from: str | Path, key: str = "task.init_from",
                         to_make_it: str = "run the earlier stage first") -> None:
    """Give `model` a finished run's tested weights (its folder) or a checkpoint file's: a later stage's start.
    A missing file or a checkpoint of another network is one ConfigError naming `key`."""
    path = Path(init_from)
    ckpt = run_checkpoint(path) if path.is_dir() else path
    if not ckpt.is_file():
        raise ConfigError(f"{key}: no checkpoint at '{ckpt}'; {to_make_it}")
    try:
        model.load_state_dict(model_state(ckpt))
    except RuntimeError as err:
        raise ConfigError(f"{key}='{init_from}' holds a different model: {str(err).splitlines()[0]}") from err
