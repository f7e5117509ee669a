"""The CPU cost of a slice of `make claim-<paper>` on the trainer path against the plain loop it replaced.

    python scripts/bench/paper_cost.py --paper apt|apt-whole|degradequery|deepfakegenome [--rounds 2]
                                       [--arms plain,before,after] [--before 69fe7e2] [--chain-before] [--seeds 0,1,2]

Each slice runs three ways, each arm as child processes, interleaved round by round:

- plain:  the removed plain PyTorch loop, from a temporary git worktree of the last commit that had it;
- before: `reprolab-train -m` from a temporary worktree of `--before` (the core before this cost pass);
- after:  `reprolab-train -m` from this checkout, the sweeps chained in one process (`--next`).

`--chain-before` chains the before arm's sweeps too (a `--before` revision that has `--next`): the two trainer
arms then differ only in the core's code.

Both trainer arms run the claim's presets with the same jobs, seeds, steps / epochs and evaluation as the
plain loop; where the claim protocol differs from the plain loop's, an override matches them and the
printout says which. Cost = user+sys CPU time of the children (interpreter, imports, Hydra, Lightning,
training). Prints each arm's median over rounds, the ratios, and whether the trainer arms' metrics.json
agree to the bit run by run. Every child runs under `step_count.py`, which counts `optimizer.step()` calls (torch's
global step hook): where the arms take different numbers of steps (DegradeQuery's early stopping on different batch
draws), the printout gives each arm's steps and CPU per step beside the totals. `--seeds` runs a slice whose jobs
are per seed (DegradeQuery) over more seeds, so such differences average out.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from claim_cost import REPO_ROOT, checkouts, child_cpu, print_cpu_table  # noqa: E402
from hetero_cost import metrics_by_run  # noqa: E402

from reprolab.paths import data_root  # noqa: E402

BEFORE = "69fe7e2"  # main before this cost pass (issue 12, item 3)
STEP_COUNT = Path(__file__).resolve().parent / "step_count.py"


@dataclass(frozen=True)
class Slice:
    plain_rev: str           # the last commit with the plain loop
    plain: str               # Python run in that commit's worktree ({data}, {cache} formatted in)
    sweeps: tuple            # `reprolab-train -m` override lists ({data}, {cache}, {root} formatted in)
    jobs: str                # what the slice holds
    protocol: str            # how the two paths' protocols compare (printed)
    prepare: str = ""        # untimed set-up in the plain worktree (e.g. building a generated data set)
    prepare_trainer: tuple = ()  # untimed set-up command in this checkout
    cold_cache: bool = False     # each trainer arm and round gets its own empty {cache}: it pays what the plain loop
                                 # pays (DegradeQuery's ECFP featurisation), not an earlier arm's cached result


APT_WEIGHTINGS = "ew,pcgrad,mgda,imtl,dbmtl,alignedmtl,rlw,famo"  # make claim-apt's (APT_CLAIM_WEIGHTINGS)


def apt_plain(problems: list[str], weightings: str) -> str:
    """The removed plain grid over `problems` x `weightings` (comma-separated), {data} left to fill."""
    return ("import warnings, torch\n"
            'torch.set_num_threads(1); warnings.filterwarnings("ignore", module="cvxpy")\n'
            "from experiments.apt.claim import load_problems, run_grid\n"
            f'run_grid(load_problems({problems!r}, "{{data}}"), {weightings.split(",")!r}, [0, 1, 2], log=lambda *a: None)\n')


APT_PLAIN = apt_plain(["enb"], "ew,pcgrad")
APT_COMMON = ["experiment=apt/claim_enb", "seed=0,1,2", "print_config=false", "paths.data_dir={data}"]
APT_WHOLE_COMMON = ["seed=0,1,2", "print_config=false", "paths.data_dir={data}"]
APT_WHOLE_STL = {"synthetic": "task0,task1", "digits": "left,right", "enb": "heating,cooling"}

DQ_PLAIN = """
import torch
torch.set_num_threads(1)
from experiments.degradequery.claim import ClaimConfig, NeuralModels, run_split
from experiments.degradequery.data import load_protac8k
cfg = ClaimConfig(seeds=({seeds},), splits=("official",), models=("degradequery", "no_pretrain", "molecule_only"))
neural = NeuralModels(load_protac8k("{data}"), cfg)
for seed in cfg.seeds:
    run_split(neural, "official", seed, {{}})
"""
DQ_COMMON = ["seed={seeds}", "++data.split=official", "print_config=false", "paths.data_dir={data}",
             "paths.log_dir={root}", "paths.cache_dir={cache}"]  # the first job fills the ECFP cache, the others read it

DFG_PLAIN_SETUP = """
import torch
torch.set_num_threads(1)
from pathlib import Path
from experiments.deepfakegenome import claim
photos = Path("{data}") / "cifar10-jpeg-subset"
"""
DFG_COMMON = ["seed=0", "print_config=false", "paths.data_dir={data}", "paths.cache_dir={cache}",
              "++trainer.limit_val_batches=0", "callbacks.model_checkpoint=null", "++trainer.enable_checkpointing=false"]

SLICES = {
    "apt": Slice(
        plain_rev="c74dab3^",
        plain=APT_PLAIN,
        sweeps=(["task.single_task=heating,cooling", "optimizer=adam,muon", *APT_COMMON,
                 "hydra.sweep.dir={root}/stl_enb"],
                ["task.weighting=ew,pcgrad", "optimizer=adam,apt_adam,muon,apt_muon", *APT_COMMON,
                 "hydra.sweep.dir={root}/mtl"]),
        jobs="ENB2012, {EW, PCGrad} x {adam, apt_adam, muon, apt_muon} x 3 seeds + 12 single-task runs (36 runs)",
        protocol="same protocol: 300 steps of batch 64, no validation, the final model tested (claim_enb preset)"),
    "apt-whole": Slice(
        plain_rev="c74dab3^",
        plain=apt_plain(list(APT_WHOLE_STL), APT_WEIGHTINGS),
        sweeps=(*([f"experiment=apt/claim_{problem}", f"task.single_task={tasks}", "optimizer=adam,muon",
                   *APT_WHOLE_COMMON, f"hydra.sweep.dir={{root}}/stl_{problem}"]
                  for problem, tasks in APT_WHOLE_STL.items()),
                [f"task.weighting={APT_WEIGHTINGS}",
                 "experiment=apt/claim_synthetic,apt/claim_digits,apt/claim_enb", "optimizer=adam,apt_adam,muon,apt_muon",
                 *APT_WHOLE_COMMON, "hydra.sweep.dir={root}/mtl"]),
        jobs="the whole claim-apt grid: synthetic, digits and ENB2012 x 8 weightings x {adam, apt_adam, muon, apt_muon} "
             "x 3 seeds + 36 single-task runs (324 runs; tables and claims left out on both paths)",
        protocol="same protocol per problem (claim_<problem> presets: steps, batch, lr; no validation, the final model "
                 "tested); the plain loop also evaluated each run on validation"),
    "degradequery": Slice(
        plain_rev="d5cf258^",
        plain=DQ_PLAIN,
        cold_cache=True,
        sweeps=(["experiment=degradequery/pretrain", *DQ_COMMON,
                 "hydra.sweep.dir={root}/claims/degradequery/pretrain", "hydra.sweep.subdir=${{data.split}}-${{seed}}"],
                ["experiment=degradequery/main,degradequery/no_pretrain,degradequery/molecule_only", *DQ_COMMON,
                 "hydra.sweep.dir={root}/official"]),
        jobs="official split, the 3 network arms (main with its pretraining, no_pretrain, molecule_only), seeds {seeds}",
        protocol="same protocol: 500 pretraining steps; fine-tuning <= 60 epochs, validation AUROC every epoch, "
                 "early stopping (patience 12), best epoch tested; the runs' epoch counts differ (different batch "
                 "draws). The forest arms are left out: the trainer's now fit 5-fold CV (a changed protocol), and "
                 "their cost is scikit-learn's on both paths"),
    "deepfakegenome": Slice(
        plain_rev="d5cf258^",
        plain=DFG_PLAIN_SETUP + 'claim.run_seed(0, Path("{cache}"), photos, {{"cnn": 8, "spectrum": 15}})\n',
        prepare=DFG_PLAIN_SETUP + 'claim.datamodules(Path("{cache}"), photos, 0)\n',
        prepare_trainer=("scripts/data/make_forgery_zoo.py", "--out", "{cache}/forgery_zoo",
                         "--photos", "{data}/cifar10-jpeg-subset"),
        sweeps=(["experiment=deepfakegenome/zoo_binary_cpu,deepfakegenome/zoo_binary_fft_cpu", *DFG_COMMON,
                 "hydra.sweep.dir={root}/binary"],
                ["experiment=deepfakegenome/zoo_attribution_cpu,deepfakegenome/zoo_attribution_fft_cpu", *DFG_COMMON,
                 "hydra.sweep.dir={root}/attribution"]),
        jobs="seed 0: binary detector and ArcFace attributor x {small CNN 8 epochs, FFT spectrum 15 epochs} (4 runs)",
        protocol="matched by override: the claim presets validate every epoch and test the best epoch; the plain "
                 "loop never validated and tested the final model, so the trainer arms run with "
                 "trainer.limit_val_batches=0, and no checkpoint callback"),
}


def tree_env(tree: Path) -> dict:
    return {**os.environ, "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
            "PYTHONPATH": f"{tree / 'src'}{os.pathsep}{tree}"}


def arm_commands(arm: str, sl: Slice, fmt: dict, chain_before: bool = False) -> list[list[str]]:
    """plain: one process; before: one `reprolab-train -m` per sweep (chained with `chain_before`); after: the
    sweeps chained in one process (`--next`, reprolab/sweep_chain.py), as the claim targets now run them. Each runs
    under step_count.py."""
    counted = [sys.executable, str(STEP_COUNT)]
    if arm == "plain":
        return [[*counted, "-c", sl.plain.format(**fmt)]]
    sweeps = [["-m", *(o.format(**fmt) for o in sweep)] for sweep in sl.sweeps]
    if arm == "after" or (arm == "before" and chain_before):
        sweeps = [[arg for sweep in sweeps for arg in ["--next", *sweep]][1:]]
    return [[*counted, "-m", "reprolab.train", *sweep] for sweep in sweeps]


def cache_dir(sl: Slice, tmp: str, arm: str, round_: int) -> str:
    """The {cache} of one arm's round: its own empty folder for a `cold_cache` slice, else the slice's shared one."""
    return f"{tmp}/cache-{arm}-{round_}" if sl.cold_cache else f"{tmp}/cache"


def prepare(sl: Slice, trees: dict, fmt: dict) -> None:
    """Untimed: build what both paths read (the same generated data every round)."""
    if sl.prepare and "plain" in trees:
        subprocess.run([sys.executable, "-c", sl.prepare.format(**fmt)], cwd=trees["plain"], env=tree_env(trees["plain"]),
                       check=True, capture_output=True)
    if sl.prepare_trainer:
        subprocess.run([sys.executable, *(a.format(**fmt) for a in sl.prepare_trainer)], cwd=REPO_ROOT,
                       env=tree_env(REPO_ROOT), check=True, capture_output=True)


def load_average() -> str:
    return " ".join(f"{x:.1f}" for x in os.getloadavg())


def read_steps(path: Path) -> int:
    """The optimizer steps step_count.py recorded for one arm's children (0 when none ran)."""
    return sum(int(line) for line in path.read_text().split()) if path.exists() else 0


def print_steps_table(arms: list[str], cpu: dict, steps: dict) -> None:
    """Each arm's optimizer steps (median over rounds) and CPU per step, beside the totals: the like-for-like figure
    where the arms do not take the same steps (the headline ratio stays the total)."""
    ref = statistics.median(cpu[arms[0]]) / max(statistics.median(steps[arms[0]]), 1)
    print("\n| arm | optimizer steps (median) | CPU per optimizer step | ratio |\n|---|---|---|---|")
    for arm in arms:
        per_step = statistics.median(cpu[arm]) / max(statistics.median(steps[arm]), 1)
        print(f"| {arm} | {statistics.median(steps[arm]):.0f} | {per_step * 1e3:.2f} ms | {per_step / ref:.3f} |")


def report(paper: str, sl: Slice, arms: list[str], cpu: dict, rounds: int, differ: list | None, n_runs: int,
           steps: dict | None = None, seeds: str = "0") -> None:
    print(f"\n{paper}: {sl.jobs.replace('{seeds}', seeds)}\nprotocol: {sl.protocol}\nCPU = user+sys of the children "
          f"(OMP_NUM_THREADS=1), median of {rounds} rounds; ratio to {arms[0]}; load average at the end {load_average()}\n")
    print_cpu_table(arms, cpu)
    if steps:
        print_steps_table(arms, cpu, steps)
    if differ is not None:
        print(f"\nmetrics.json, before vs after: {n_runs} runs, {len(differ)} differ"
              + (f": {', '.join(differ)}" if differ else " (bit-identical)"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--paper", required=True, choices=sorted(SLICES))
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--arms", default="plain,before,after")
    parser.add_argument("--before", default=BEFORE, help="git revision of the 'before' trainer arm")
    parser.add_argument("--chain-before", action="store_true", help="chain the before arm's sweeps as the after arm's")
    parser.add_argument("--data-dir", default=str(data_root()))
    parser.add_argument("--seeds", default="0", help="degradequery: the seeds its slice runs (e.g. 0,1,2)")
    args = parser.parse_args()
    sl, arms = SLICES[args.paper], args.arms.split(",")
    if args.seeds != "0" and "{seeds}" not in sl.plain:
        parser.error(f"--seeds: the {args.paper} slice has fixed seeds")
    revs = {arm: rev for arm, rev in (("plain", sl.plain_rev), ("before", args.before)) if arm in arms}
    cpu: dict[str, list[float]] = {arm: [] for arm in arms}
    steps: dict[str, list[int]] = {arm: [] for arm in arms}
    with tempfile.TemporaryDirectory(prefix="paper-cost-") as tmp, checkouts(revs, Path(tmp)) as trees:
        trees["after"] = REPO_ROOT
        fmt = {"data": args.data_dir, "cache": f"{tmp}/cache", "seeds": args.seeds}
        prepare(sl, trees, fmt)
        for r in range(args.rounds):
            for arm in arms:
                total, counted = 0.0, Path(tmp) / f"steps-{arm}-{r}.txt"
                env = {**tree_env(trees[arm]), "REPROLAB_STEP_COUNT": str(counted)}
                cache = cache_dir(sl, tmp, arm, r)
                for cmd in arm_commands(arm, sl, {**fmt, "root": f"{tmp}/runs/{arm}-{r}", "cache": cache},
                                        args.chain_before):
                    total += child_cpu(cmd, trees[arm], env)[0]
                cpu[arm].append(total)
                steps[arm].append(read_steps(counted))
                print(f"round {r}: {arm:6s} {total:7.1f} s CPU, {steps[arm][-1]} optimizer steps (load {load_average()})",
                      flush=True)
        runs = {arm: metrics_by_run(Path(tmp) / "runs" / f"{arm}-0") for arm in ("before", "after") if arm in arms}
    differ = None
    if len(runs) == 2:
        differ = [run for run in runs["after"] if runs["after"][run] != runs["before"].get(run)]
        differ += [run for run in runs["before"] if run not in runs["after"]]
    report(args.paper, sl, arms, cpu, args.rounds, differ, len(runs.get("after", {})), steps, args.seeds)


if __name__ == "__main__":
    main()
