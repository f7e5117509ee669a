"""Steps-to-target: the first validation step at which a run's curve reaches a level.

The level is fixed (e.g. 1 % excess risk) or taken from a reference run's curve: its terminal value or
its best value. "Steps saved" (DeltaMomentum §4) is 1 − s_run/s_ref, with s_ref the reference's own
step at that level (its last step for the terminal value, its first best step for the best); when the run never reaches it, the mirror image
−(1 − s_ref'/s_run) with s_ref' the reference's first step at the run's own level. Curves are pandas
Series indexed by step (`reprolab.results.curves.run_curve`); runs are paired by seed (`pair_runs`).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

import pandas as pd

from reprolab.results.runs import Run

TARGETS = ("terminal", "best")


def _check_mode(mode: str) -> None:
    if mode not in ("min", "max"):
        raise ValueError(f"mode must be 'min' or 'max', got {mode!r}")


def first_step_reaching(curve: pd.Series, level: float, mode: str = "min") -> float:
    """First step whose value is ≤ level (mode min) or ≥ level (mode max); inf when none is."""
    _check_mode(mode)
    reached = curve <= level if mode == "min" else curve >= level
    hits = curve.index[reached.to_numpy()]
    return float(hits[0]) if len(hits) else math.inf


def target_level(curve: pd.Series, target: str = "terminal", mode: str = "min") -> float:
    """The reference curve's terminal value or its best value (min or max by `mode`)."""
    _check_mode(mode)
    if target not in TARGETS:
        raise ValueError(f"target must be one of {TARGETS}, got {target!r}")
    if curve.empty:
        raise ValueError("empty reference curve: the run logged no validation value")
    if target == "terminal":
        return float(curve.iloc[-1])
    return float(curve.min() if mode == "min" else curve.max())


def steps_to_target(reference: pd.Series, run: pd.Series, target: str = "terminal", mode: str = "min") -> float:
    """First step at which `run` reaches `reference`'s terminal (or best) value; inf when it never does."""
    return first_step_reaching(run, target_level(reference, target, mode), mode)


def level_step(curve: pd.Series, target: str = "terminal", mode: str = "min") -> float:
    """The step at which a curve holds its own level: its last step (terminal) or its first best step."""
    if target == "terminal":
        return float(curve.index[-1])
    return first_step_reaching(curve, target_level(curve, target, mode), mode)


def steps_saved(reference: pd.Series, run: pd.Series, target: str = "terminal", mode: str = "min") -> float:
    """1 − s_run/s_ref at the reference's level; mirrored −(1 − s_ref'/s_run) when the run never gets there."""
    s_run = steps_to_target(reference, run, target, mode)
    if math.isfinite(s_run):
        return 1.0 - s_run / level_step(reference, target, mode)
    return -(1.0 - steps_to_target(run, reference, target, mode) / level_step(run, target, mode))


def pair_runs(runs: Iterable[Run], references: Iterable[Run], by: Sequence[str] = ("seed",)) -> list[tuple[Run, Run]]:
    """(run, reference) pairs whose `by` values agree (as strings); a run without a match is left out."""
    index: dict[tuple, Run] = {}
    for ref in references:
        key = tuple(str(ref.get(k)) for k in by)
        if key in index:
            raise ValueError(f"two reference runs share {dict(zip(by, key, strict=True))}: "
                             f"{index[key].path} and {ref.path}; add a selector")
        index[key] = ref
    pairs = []
    for run in runs:
        ref = index.get(tuple(str(run.get(k)) for k in by))
        if ref is not None:
            pairs.append((run, ref))
    return pairs
