"""Where the config tree lives, the resolvers it uses, and composing it without the command line."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Sequence
from pathlib import Path

import torch
from hydra import compose as hydra_compose
from hydra import initialize_config_dir
from omegaconf import DictConfig, OmegaConf, open_dict

REPO_ROOT = Path(__file__).resolve().parents[3]
CONF_DIR = Path(os.environ.get("REPROLAB_CONF", REPO_ROOT / "conf")).resolve()


def _register_resolvers() -> None:
    # `${cuda_or:a,b}`: a on a machine with CUDA, else b (the `auto` device group uses it).
    OmegaConf.register_new_resolver("cuda_or", lambda a, b: a if torch.cuda.is_available() else b, replace=True)
    # `${with_seed:${tags},${seed}}`: the run's tags plus `seed<N>`, for W&B filtering.
    OmegaConf.register_new_resolver("with_seed", lambda tags, seed: [*tags, f"seed{seed}"], replace=True)


_register_resolvers()


def compose(overrides: Sequence[str] = (), output_dir: str | Path | None = None, config_name: str = "train") -> DictConfig:
    """Compose the training config as `reprolab-train` would, for tests and in-process claim checks.

    `paths.output_dir` (Hydra's run dir on the command line) is set to `output_dir`, or a fresh
    temporary folder.
    """
    with initialize_config_dir(config_dir=str(CONF_DIR), version_base="1.3"):
        cfg = hydra_compose(config_name=config_name, overrides=list(overrides))
    with open_dict(cfg):
        cfg.paths.output_dir = str(output_dir or tempfile.mkdtemp(prefix="reprolab-run-"))
    return cfg


def compose_group(group: str, option: str) -> DictConfig:
    """One group option as `train.yaml` would compose it (its own defaults list included), unresolved."""
    with initialize_config_dir(config_dir=str(CONF_DIR), version_base="1.3"):
        return hydra_compose(config_name="train", overrides=[f"{group}={option}"])[group]
