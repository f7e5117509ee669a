"""`${study_seed:${seed},<storage>}`: the Optuna sampler's seed, offset by the trials the study already holds.

A fixed sampler seed makes a resumed study draw its first (random start-up) trials again, so every
rerun of the same command repeated trial 0's parameters. Offsetting by the stored trial count keeps
each invocation reproducible from the study's state and never repeats a draw.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from omegaconf import OmegaConf


def study_seed(seed: int, storage: str | None) -> int:
    """`seed` plus the number of trials in the sqlite study at `storage` (0 when it does not exist yet)."""
    path = Path(str(storage or "").removeprefix("sqlite:///"))
    if not str(storage or "").startswith("sqlite:///") or not path.is_file():
        return int(seed)
    try:
        with sqlite3.connect(path) as con:
            (count,) = con.execute("select count(*) from trials").fetchone()
    except sqlite3.Error:  # a new or foreign database: no trials to skip
        return int(seed)
    return int(seed) + int(count)


OmegaConf.register_new_resolver("study_seed", study_seed, replace=True)
