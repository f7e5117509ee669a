"""Group-relative advantages (GRPO: Shao et al. 2024, DeepSeekMath §4.1.2; Dr. GRPO: Liu et al. 2025, §3.1).

G completions of one prompt form a group; each completion's advantage is its reward against its group's:

    mean_std:  Â_i = (r_i − mean(r)) / (std(r) + eps)     GRPO, outcome supervision
    mean:      Â_i =  r_i − mean(r)                        Dr. GRPO (no std: it up-weights easy and hard prompts)

`std` is the sample standard deviation (n − 1), as torch and TRL compute it. A group whose rewards are all
equal has Â = 0 under both: it carries no learning signal.
"""

from __future__ import annotations

import torch

from reprolab.cli.errors import ConfigError

NORMALISATIONS = ("mean_std", "mean")


def group_advantages(rewards: torch.Tensor, group_size: int, normalise: str = "mean_std",
                     eps: float = 1e-6) -> torch.Tensor:
    """Â of `rewards` [P·G] laid out group after group (the G completions of prompt p at p·G … p·G + G − 1)."""
    if normalise not in NORMALISATIONS:
        raise ConfigError(f"task.advantage={normalise!r}; choose one of {', '.join(NORMALISATIONS)}")
    if group_size < 2 or rewards.numel() % group_size:
        raise ConfigError(f"task.group_size={group_size}: a group needs >= 2 completions and must divide the "
                          f"{rewards.numel()} rewards of a batch")
    groups = rewards.reshape(-1, group_size)
    centred = groups - groups.mean(1, keepdim=True)
    if normalise == "mean_std":
        centred = centred / (groups.std(1, keepdim=True) + eps)
    return centred.reshape(-1)
