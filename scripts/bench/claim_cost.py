"""The CPU cost of a claim on the trainer path against a plain PyTorch loop at the same protocol.

    python scripts/bench/claim_cost.py [--rounds 3] [--before 3417303] [--arms plain,before,after]

The tiny-LM grid of the DeltaMomentum claim (AdamW and DeltaAdamW × 4 learning rates, one seed; tiny
Llama, byte tokens of TinyShakespeare, seq 64, batch 16, 240 steps with 16 warm-up steps, validation
every 10 steps on 64 held-out windows), run three ways, each as one child process, interleaved round
by round:

- plain:  the minimal PyTorch loop below (the reference; validation at step 0 and every 10 steps);
- before: `reprolab-train -m` from a temporary git worktree of `--before` (the core before the cost
          fixes, default 3417303), with the same overrides;
- after:  `reprolab-train -m` from this checkout.

Cost = user+sys CPU time of the child and everything it waited for (Python, imports, Hydra, Lightning).
Prints each arm's median over rounds and its ratio to the plain loop's median.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from reprolab.paths import data_root

REPO_ROOT = Path(__file__).resolve().parents[2]
BEFORE = "3417303"  # main before the claim-cost fixes (issue 12, item 3)


@dataclass(frozen=True)
class Protocol:
    seq_len: int = 64
    batch: int = 16
    eval_windows: int = 64
    steps: int = 240
    warmup: int = 16
    eval_every: int = 10
    seed: int = 0
    optimizers: tuple[str, ...] = ("adamw", "delta_adamw")
    lrs: tuple[float, ...] = (1e-3, 3e-3, 1e-2, 3e-2)
    text: str = "tinyshakespeare/input.txt"


QUICK = Protocol(steps=20, warmup=2, eval_every=10, lrs=(3e-3,))


def trainer_overrides(p: Protocol, data_dir: str, sweep_dir: str) -> list[str]:
    """The same protocol as a `reprolab-train -m` sweep over the core's config groups."""
    return [
        "data=text_file", "model=llama_tiny", "task=language_model", "scheduler=warmup_cosine", "device=cpu",
        f"optimizer={','.join(p.optimizers)}", f"optimizer.lr={','.join(f'{lr:g}' for lr in p.lrs)}",
        "optimizer.weight_decay=0.0",  # betas (0.9, 0.95) are the adamw and delta_adamw defaults
        f"paths.data_dir={data_dir}", f"data.path={p.text}", f"data.seq_len={p.seq_len}",
        f"data.batch_size={p.batch}", f"data.eval_batch_size={p.eval_windows}",
        f"data.max_eval_windows={p.eval_windows}",
        f"trainer.max_steps={p.steps}", "trainer.max_epochs=-1", f"trainer.val_check_interval={p.eval_every}",
        "trainer.check_val_every_n_epoch=null", f"scheduler.warmup_steps={p.warmup}", "scheduler.min_lr_ratio=0.1",
        "monitor.metric=val/loss", "monitor.mode=min", f"seed={p.seed}",
        f"hydra.sweep.dir={sweep_dir}", f"paths.log_dir={sweep_dir}",
    ]


def plain_grid(p: Protocol, data_dir: str) -> None:
    """The reference: every (optimizer, lr) of the grid as a plain PyTorch loop, one after another."""
    import torch
    import torch.nn.functional as F

    from experiments.deltamomentum.data import TextFileDataModule
    from experiments.deltamomentum.model import LlamaLM
    from reprolab.optim.delta import DeltaAdamW
    from reprolab.optim.schedules import warmup_cosine

    dm = TextFileDataModule(data_dir, p.text, vocab_size=257, seq_len=p.seq_len, batch_size=p.batch,
                            max_eval_windows=p.eval_windows)
    dm.setup()
    train, val = dm.splits["train"], dm.splits["val"]
    val_x, val_y = (torch.stack(t) for t in zip(*[val[i] for i in range(len(val))], strict=True))
    for name in p.optimizers:
        for lr in p.lrs:
            torch.manual_seed(p.seed)
            model = LlamaLM(257, 64, 2, 4, max_seq_len=p.seq_len)
            if name == "adamw":
                opt = torch.optim.AdamW(model.parameters(), lr=lr, betas=(0.9, 0.95), weight_decay=0.0)
            else:
                opt = DeltaAdamW(model, lr=lr, betas=(0.9, 0.95), weight_decay=0.0, eta=0.5)
            sched = warmup_cosine(opt, p.steps, warmup_steps=p.warmup, min_lr_ratio=0.1)
            gen = torch.Generator().manual_seed(p.seed)
            for step in range(p.steps + 1):
                if step % p.eval_every == 0:
                    model.eval()
                    with torch.no_grad():
                        F.cross_entropy(model(val_x).flatten(0, 1), val_y.flatten()).item()
                    model.train()
                if step == p.steps:
                    break
                idx = torch.randint(len(train), (p.batch,), generator=gen).tolist()
                x, y = (torch.stack(t) for t in zip(*[train[i] for i in idx], strict=True))
                loss = F.cross_entropy(model(x).flatten(0, 1), y.flatten())
                loss.backward()
                opt.step()
                opt.zero_grad()
                sched.step()
                loss.item()


def print_cpu_table(arms: list[str], cpu: dict, wall: dict | None = None) -> None:
    """Markdown table of each arm's median CPU (min–max over rounds), median wall if given, and ratio to arms[0]."""
    ref = statistics.median(cpu[arms[0]])
    print("| arm | CPU time (median, min–max) |" + (" wall (median) |" if wall else "") + " ratio |")
    print("|---|---|" + ("---|" if wall else "") + "---|")
    for arm in arms:
        med = statistics.median(cpu[arm])
        walls = f" {statistics.median(wall[arm]):.1f} s |" if wall else ""
        print(f"| {arm} | {med:.1f} s ({min(cpu[arm]):.1f}–{max(cpu[arm]):.1f}) |{walls} {med / ref:.3f} |")


def child_cpu(cmd: list[str], cwd: Path, env: dict) -> tuple[float, float]:
    """(user+sys CPU seconds, wall seconds) of one child process; its output is discarded."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    result = subprocess.run(cmd, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    wall = time.perf_counter() - start
    if result.returncode != 0:
        sys.exit(f"error: {' '.join(cmd[:4])} … failed:\n{result.stderr[-2000:]}")
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime, wall


@contextlib.contextmanager
def checkouts(revs: dict[str, str], tmp: Path):
    """{arm: temporary detached git worktree of its revision}, removed on exit (also after an error). Only the
    worktrees made here are removed: a tree the caller adds to the dict (paper_cost's `after`, this checkout)
    is left alone."""
    trees: dict[str, Path] = {}
    made: list[Path] = []
    try:
        for arm, rev in revs.items():
            subprocess.run(["git", "worktree", "add", "--detach", str(tmp / arm), rev], cwd=REPO_ROOT, check=True,
                           capture_output=True)
            made.append(tmp / arm)
            trees[arm] = tmp / arm
        yield trees
    finally:
        for tree in made:
            subprocess.run(["git", "worktree", "remove", "--force", str(tree)], cwd=REPO_ROOT, capture_output=True)


def arm_command(arm: str, tree: Path, p: Protocol, data_dir: str, sweep_dir: str, quick: bool) -> list[str]:
    if arm == "plain":
        return [sys.executable, str(REPO_ROOT / "scripts/bench/claim_cost.py"), "--plain-worker",
                "--data-dir", data_dir, *(["--quick"] if quick else [])]
    return [sys.executable, "-m", "reprolab.train", "-m", *trainer_overrides(p, data_dir, sweep_dir)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--arms", default="plain,before,after")
    parser.add_argument("--before", default=BEFORE, help="git revision of the 'before' arm")
    parser.add_argument("--data-dir", default=str(data_root()))
    parser.add_argument("--quick", action="store_true", help="a 2-run, 20-step grid (a smoke test)")
    parser.add_argument("--plain-worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    protocol = QUICK if args.quick else Protocol()
    if args.plain_worker:
        plain_grid(protocol, args.data_dir)
        return
    if not (Path(args.data_dir) / protocol.text).is_file():
        sys.exit(f"error: {Path(args.data_dir) / protocol.text} not found; pass --data-dir or set REPROLAB_DATA")
    arms = args.arms.split(",")
    cpu: dict[str, list[float]] = {arm: [] for arm in arms}
    wall: dict[str, list[float]] = {arm: [] for arm in arms}
    with tempfile.TemporaryDirectory(prefix="claim-cost-") as tmp, \
            checkouts({"before": args.before} if "before" in arms else {}, Path(tmp)) as trees:
        trees.update(plain=REPO_ROOT, after=REPO_ROOT)
        for r in range(args.rounds):
            for arm in arms:
                tree = trees[arm]
                env = {**os.environ, "OMP_NUM_THREADS": "1", "PYTHONPATH": f"{tree / 'src'}{os.pathsep}{tree}"}
                cmd = arm_command(arm, tree, protocol, args.data_dir, f"{tmp}/sweeps/{arm}-{r}", args.quick)
                c, w = child_cpu(cmd, tree, env)
                cpu[arm].append(c)
                wall[arm].append(w)
                print(f"round {r}: {arm:6s} {c:7.1f} s CPU {w:7.1f} s wall", flush=True)
    n_runs = len(protocol.optimizers) * len(protocol.lrs)
    print(f"\n{n_runs} runs × {protocol.steps} steps, median of {args.rounds} rounds, CPU = user+sys "
          f"(OMP_NUM_THREADS=1); ratio to {arms[0]}:\n")
    print_cpu_table(arms, cpu, wall)


if __name__ == "__main__":
    main()
