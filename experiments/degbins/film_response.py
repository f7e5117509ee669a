"""Diagnostic (no claim): how much the FiLM condition of finished runs modulates Z per degradation.

    python -m experiments.degbins.film_response logs/claims/degbins/degradation_b32_film [more sweep folders ...]

For every finished run with `model.degradation_condition: film` below the given folders: rebuild the model from the
run's composed config (`.hydra/config.yaml`) with the checkpoint it tested (`reprolab.run.finished_model.load_run_model`), and evaluate FiLM's
(γ, β) = MLP(c) on the code c of each of the run's test degradations (`Z ← Z ⊙ (1 + γ) + β`, model.py). Prints, per
run and degradation, mean and max |γ| (a relative gain on Z, dimensionless) and mean |β| (in Z's units), and per
run the largest |Δγ| between ×16 and ×4 and between noisy and clean ×8. Nothing is written.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import torch

from experiments.degbins.model import degradation_code
from reprolab.results.runs import find_runs
from reprolab.run.finished_model import load_run_model


def film_modulation(film: torch.nn.Module, degradations: list[tuple[float, float]]) -> dict[tuple, tuple]:
    """(scale, noise_std) → (γ (C,), β (C,)) of a FiLM module for each raw degradation."""
    with torch.no_grad():
        raw = torch.tensor([[float(s), float(n)] for s, n in degradations])
        gamma, beta = film.net(degradation_code(raw)).chunk(2, 1)
    return {(float(s), float(n)): (g, b) for (s, n), g, b in zip(degradations, gamma, beta, strict=True)}


def load_film(run_dir: Path) -> tuple[torch.nn.Module, list]:
    """The trained FiLM module of a run and its test degradations, from the run's own config and tested checkpoint."""
    model, cfg = load_run_model(run_dir)
    return model.film, [tuple(d) for d in cfg.data.test_degradations]


def report(folders: list[Path]) -> list[str]:
    lines = ["| run | seed | degradation | mean abs γ | max abs γ | mean abs β |", "|---|---|---|---|---|---|"]
    contrasts = []
    for run in find_runs(folders):
        if not run.finished or run.get("model.degradation_condition") != "film":
            continue
        film, degradations = load_film(Path(run.path))
        mod = film_modulation(film, degradations)
        for (s, n), (g, b) in mod.items():
            lines.append(f"| {run.path} | {run.get('seed')} | ×{s:g}, σ {n:g} | {g.abs().mean():.2e} | "
                         f"{g.abs().max():.2e} | {b.abs().mean():.2e} |")
        pairs = {"×16 − ×4": ((16.0, 0.0), (4.0, 0.0)), "noisy − clean ×8": ((8.0, 0.02), (8.0, 0.0))}
        for name, (a, c) in pairs.items():
            if a in mod and c in mod:
                contrasts.append(f"- {run.path} (seed {run.get('seed')}): max |Δγ| {name} = "
                                 f"{(mod[a][0] - mod[c][0]).abs().max():.2e}, max |Δβ| = {(mod[a][1] - mod[c][1]).abs().max():.2e}")
    return lines + [""] + contrasts


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("folders", nargs="+", type=Path)
    print("\n".join(report(p.parse_args().folders)))


if __name__ == "__main__":
    main()
