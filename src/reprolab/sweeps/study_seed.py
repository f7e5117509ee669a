"""`${study_seed:${seed},<storage>}`: the Optuna sampler's seed, offset by the trials the study already holds.

A fixed sampler seed makes a resumed study draw its first (random start-up) trials again, so every
rerun of the same command repeated trial 0's parameters. Offsetting by the stored trial count keeps
each invocation reproducible from the study's state and never repeats a draw.
"""

from __future__ import annotations

from pathlib import Path

from omegaconf import OmegaConf


def study_seed(seed: int, storage: str | None) -> int:
    """`seed` plus the number of trials stored at `storage` (0 when it does not exist yet), read through Optuna."""
    path = Path(str(storage or "").removeprefix("sqlite:///"))
    if not str(storage or "").startswith("sqlite:///") or not path.is_file():
        return int(seed)
    import optuna

    try:
        summaries = optuna.study.get_all_study_summaries(storage=str(storage))
    except Exception:  # noqa: BLE001 — a new or foreign database: no trials to skip
        return int(seed)
    return int(seed) + sum(summary.n_trials for summary in summaries)


OmegaConf.register_new_resolver("study_seed", study_seed, replace=True)
