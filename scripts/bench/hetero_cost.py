"""CPU cost of a slice of `make claim-heteroskedastic`, before and after the per-job cost fixes, and whether
every run's metrics stayed bit-identical.

    python scripts/bench/hetero_cost.py [--rounds 2] [--before d719e65] [--data hetero_energy,hetero_concrete]

The claim's three `reprolab-train -m` stages (mean MLP; post-hoc heads all/last/bootstrap/homoskedastic;
end-to-end MVE, beta-NLL 0.5/1, Faithful) over `--data` x `--seeds`, each stage one child process, run from
a temporary git worktree of `--before` and from this checkout, interleaved round by round. Cost = user+sys
CPU time of the child (imports, Hydra, Lightning, training). Prints CPU seconds per stage and per job (median
over rounds) and the number of runs whose metrics.json differ between the arms (paths and commit excluded).
A 24-job slice understates the sweep report's share: before the fix each report rescan parsed every run's
config, so its cost grew with the sweep (6.5 s CPU a rescan at the 200 runs of the post-hoc stage).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from claim_cost import REPO_ROOT, checkouts, child_cpu  # noqa: E402

from reprolab.paths import data_root  # noqa: E402

BEFORE = "d719e65"  # main before the per-job cost fixes (perf-s3)
POSTHOC = "heteroskedastic/posthoc_cpu,heteroskedastic/posthoc_last_cpu,heteroskedastic/posthoc_bootstrap_cpu," \
          "heteroskedastic/homoskedastic_cpu"
END_TO_END = "heteroskedastic/mve_cpu,heteroskedastic/beta_nll_cpu,heteroskedastic/beta_nll_1_cpu," \
             "heteroskedastic/faithful_cpu"
IGNORED = ("best_ckpt", "git_commit")  # where the run wrote, and from which commit


def stages(data: str, seeds: str, data_dir: str, root: str) -> dict[str, list[str]]:
    """The claim's three sweeps (experiments/heteroskedastic/targets.mk) on a slice, into `root`."""
    common = [f"data={data}", f"seed={seeds}", "print_config=false", f"paths.data_dir={data_dir}"]
    return {
        "mean": ["experiment=heteroskedastic/mean_cpu", *common, f"hydra.sweep.dir={root}/mean",
                 "hydra.sweep.subdir=${data.name}-${seed}"],
        "posthoc": [f"experiment={POSTHOC}", *common, f"++mean_runs={root}/mean", f"hydra.sweep.dir={root}/posthoc"],
        "end_to_end": [f"experiment={END_TO_END}", *common, f"hydra.sweep.dir={root}/end_to_end"],
    }


def metrics_by_run(root: Path) -> dict[str, dict]:
    out = {}
    for path in sorted(root.rglob("metrics.json")):
        metrics = json.loads(path.read_text())
        out[str(path.parent.relative_to(root))] = {k: v for k, v in metrics.items() if k not in IGNORED}
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--before", default=BEFORE, help="git revision of the 'before' arm")
    parser.add_argument("--data", default="hetero_energy,hetero_concrete")
    parser.add_argument("--seeds", default="0,1")
    parser.add_argument("--data-dir", default=str(data_root()))
    args = parser.parse_args()
    arms = ("before", "after")
    n_jobs = {"mean": 1, "posthoc": 4, "end_to_end": 4}
    n_jobs = {k: v * len(args.data.split(",")) * len(args.seeds.split(",")) for k, v in n_jobs.items()}
    cpu = {(arm, stage): [] for arm in arms for stage in n_jobs}
    with tempfile.TemporaryDirectory(prefix="hetero-cost-") as tmp, checkouts({"before": args.before}, Path(tmp)) as trees:
        trees["after"] = REPO_ROOT
        for r in range(args.rounds):
            for arm in arms:
                tree, root = trees[arm], f"{tmp}/runs/{arm}-{r}"
                env = {**os.environ, "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
                       "PYTHONPATH": f"{tree / 'src'}{os.pathsep}{tree}"}
                for stage, overrides in stages(args.data, args.seeds, args.data_dir, root).items():
                    c, w = child_cpu([sys.executable, "-m", "reprolab.train", "-m", *overrides], tree, env)
                    cpu[arm, stage].append(c)
                    print(f"round {r}: {arm:6s} {stage:10s} {c:7.1f} s CPU {w:7.1f} s wall", flush=True)
        runs = {arm: metrics_by_run(Path(tmp) / "runs" / f"{arm}-0") for arm in arms}
    differ = [run for run in runs["after"] if runs["after"][run] != runs["before"].get(run)]
    print(f"\nCPU = user+sys (OMP_NUM_THREADS=1), median of {args.rounds} rounds; data {args.data}, seeds {args.seeds}\n")
    print("| stage | jobs | before: CPU s (per job) | after: CPU s (per job) | after / before |\n|---|---|---|---|---|")
    totals = dict.fromkeys(arms, 0.0)
    for stage, jobs in n_jobs.items():
        med = {arm: statistics.median(cpu[arm, stage]) for arm in arms}
        for arm in arms:
            totals[arm] += med[arm]
        print(f"| {stage} | {jobs} | {med['before']:.1f} ({med['before'] / jobs:.2f}) | "
              f"{med['after']:.1f} ({med['after'] / jobs:.2f}) | {med['after'] / med['before']:.3f} |")
    jobs = sum(n_jobs.values())
    print(f"| all | {jobs} | {totals['before']:.1f} ({totals['before'] / jobs:.2f}) | "
          f"{totals['after']:.1f} ({totals['after'] / jobs:.2f}) | {totals['after'] / totals['before']:.3f} |")
    print(f"\nmetrics.json: {len(runs['after'])} runs, {len(differ)} differ between the arms"
          + (f": {', '.join(differ)}" if differ else " (bit-identical)"))
    if differ or len(runs["after"]) != len(runs["before"]):
        sys.exit(1)


if __name__ == "__main__":
    main()
