"""`reprolab-table` / `reprolab-claims` plugin: does stage A's ranking of the rubrics predict stage B's?

For each seed, the rubric arms run in both stages (same rubric choice, turns and iterations; stage B's trained
runs only, not the lr-0 start) are ranked by stage A's `test/pairwise_agreement` and by stage B's `test/reward`
(oracle quality on held-out entities); Spearman's ρ of the two rankings (scipy.stats.spearmanr) is written as
`rank/spearman_a_b` into every stage-B run of that seed, and `rank/arms` counts the arms it was computed on.
"""

from __future__ import annotations

from collections import defaultdict

from scipy.stats import spearmanr

from reprolab.results.runs import Run

STAGE_A, STAGE_B = "quality_cpu", "grpo_cpu"
STAGE_A_METRIC, STAGE_B_METRIC = "test/pairwise_agreement", "test/reward"


def arm(run: Run) -> tuple:
    return str(run.get("rubric")), run.get("rubric.turns"), run.get("rubric.iterations")


def derive_metrics(runs: list[Run]) -> None:
    stage_a, stage_b = defaultdict(dict), defaultdict(dict)
    for run in runs:
        if not run.finished:
            continue
        if run.get("setting") == STAGE_A and STAGE_A_METRIC in run.metrics:
            stage_a[run.get("seed")][arm(run)] = run.metrics[STAGE_A_METRIC]
        elif run.get("setting") == STAGE_B and STAGE_B_METRIC in run.metrics:
            stage_b[run.get("seed")][arm(run)] = run
    for seed, b_runs in stage_b.items():
        shared = sorted(set(b_runs) & set(stage_a.get(seed, {})), key=str)
        if len(shared) < 3:
            continue
        rho = spearmanr([stage_a[seed][a] for a in shared], [b_runs[a].metrics[STAGE_B_METRIC] for a in shared])[0]
        for run in b_runs.values():
            run.metrics["rank/spearman_a_b"] = float(rho)
            run.metrics["rank/arms"] = float(len(shared))
