"""Which alpha `model/alignment=ridge_cv` picks in each arm of the wide transfer setting (an analysis, not training).

It composes `experiment=probes/transfer_wide_cpu` as the claim runs do, loads the finished wide source runs and refits
each arm's alignment: `python -m experiments.probes.chosen_alphas [seed ...]` (default: the claimed seeds 1–5).
"""

from __future__ import annotations

import sys

import numpy as np
from hydra.utils import instantiate

from experiments.probes.transfer import PairedStates
from reprolab.config.compose import compose

ARMS = {"quotient, one alpha": ("quotient", False), "full, one alpha": ("full", False),
        "full, alpha per output (median)": ("full", True)}


def chosen_alphas(seed: int, n_pairs: int, *overrides: str) -> dict[str, float]:
    found = {}
    for arm, (target, per_output) in ARMS.items():
        cfg = compose(["experiment=probes/transfer_wide_cpu", f"seed={seed}", f"data.n_pairs={n_pairs}",
                       f"model.target={target}", f"model.alignment.alpha_per_target={per_output}", *overrides])
        data = instantiate(cfg.data)
        data.setup()
        train = data.splits["train"]
        fit = instantiate(cfg.model).fit(PairedStates()(train), train["label"].numpy())
        found[arm] = float(np.median(fit.alignment_.alpha_))
    return found


def main(argv: list[str] | None = None) -> None:
    seeds = [int(s) for s in (sys.argv[1:] if argv is None else argv)] or [1, 2, 3, 4, 5]
    print("| seed | data.n_pairs | " + " | ".join(ARMS) + " |")
    print("|---" * (2 + len(ARMS)) + "|")
    for seed in seeds:
        for n_pairs in (50, 200):
            alphas = chosen_alphas(seed, n_pairs)
            print(f"| {seed} | {n_pairs} | " + " | ".join(f"{a:g}" for a in alphas.values()) + " |")


if __name__ == "__main__":
    main()
