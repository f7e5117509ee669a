"""Wall time of one `reprolab-train -m` sweep run serially (Hydra's basic launcher) and with `hydra/launcher=parallel`
(JOBS workers), side by side in one run, and whether every job's metrics.json came out the same.

    python scripts/bench/sweep_parallel.py                          # 8 seeds of cifar10/small_sgd_cpu, 4 epochs (~10 s jobs)
    python scripts/bench/sweep_parallel.py --jobs 2 --rounds 2 -- -m experiment=deltamomentum/regression_sgdm \
        optimizer.lr=0.02,0.05,0.1,0.2,0.5,1.0,2.0,4.0 seed=0,1,2 logger=csv     # make demo's first arm: sub-second jobs

Arms alternate within each round (serial first in odd rounds), every job on one thread (`OMP_NUM_THREADS=1`, as the
claim targets run). Prints each arm's wall and CPU seconds (user + sys of the sweep and its workers), the ratio
parallel ÷ serial of the medians, and the jobs whose metrics differ (timing metrics and the commit stamp aside).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TRAIN = Path(sys.executable).with_name("reprolab-train")
DEFAULT = ["-m", "experiment=cifar10/small_sgd_cpu", "trainer.max_epochs=4", "seed=0,1,2,3,4,5,6,7", "logger=csv",
           "print_config=false"]
NOT_COMPARED = ("git_commit", "best_ckpt")  # the commit stamp and the checkpoint's path (another folder per arm)


def run_arm(args: list[str], sweep_dir: Path, jobs: int) -> tuple[float, float]:
    """(wall s, CPU s of the command and every process it waited for) of one sweep into a fresh folder."""
    shutil.rmtree(sweep_dir, ignore_errors=True)
    launcher = [] if jobs == 1 else ["hydra/launcher=parallel", f"hydra.launcher.n_jobs={jobs}"]
    env = {**os.environ, "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run([str(TRAIN), *args, *launcher, f"hydra.sweep.dir={sweep_dir}"], cwd=ROOT, env=env, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def job_metrics(sweep_dir: Path) -> dict[str, dict]:
    out = {}
    for path in sorted(sweep_dir.rglob("metrics.json")):
        metrics = json.loads(path.read_text())
        out[str(path.parent.relative_to(sweep_dir))] = {k: v for k, v in metrics.items()
                                                        if k not in NOT_COMPARED and not k.startswith("perf/")}
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("args", nargs="*", help="the sweep's reprolab-train arguments (after --)")
    opts = parser.parse_args()
    args = opts.args or DEFAULT
    times: dict[str, list[tuple[float, float]]] = {"serial": [], "parallel": []}
    with tempfile.TemporaryDirectory(prefix="sweep-parallel-") as tmp:
        for round_ in range(opts.rounds):
            order = ["serial", "parallel"] if round_ % 2 == 0 else ["parallel", "serial"]
            for arm in order:
                times[arm].append(run_arm(args, Path(tmp, arm), 1 if arm == "serial" else opts.jobs))
                print(f"round {round_ + 1} {arm}: {times[arm][-1][0]:.1f} s wall, {times[arm][-1][1]:.1f} s CPU", flush=True)
        serial, parallel = job_metrics(Path(tmp, "serial")), job_metrics(Path(tmp, "parallel"))
    wall = {arm: statistics.median(w for w, _ in rows) for arm, rows in times.items()}
    cpu = {arm: statistics.median(c for _, c in rows) for arm, rows in times.items()}
    differing = sorted(job for job in serial.keys() | parallel.keys() if serial.get(job) != parallel.get(job))
    print(f"jobs: {len(serial)} serial, {len(parallel)} parallel; metrics differ in {len(differing)}: {differing[:10]}")
    print(f"wall: serial {wall['serial']:.1f} s, parallel (JOBS={opts.jobs}) {wall['parallel']:.1f} s, "
          f"ratio {wall['parallel'] / wall['serial']:.2f}")
    print(f"CPU: serial {cpu['serial']:.1f} s, parallel {cpu['parallel']:.1f} s, ratio {cpu['parallel'] / cpu['serial']:.2f}")
    print(f"load average at the end: {os.getloadavg()[0]:.1f}")
    return 1 if differing or len(serial) != len(parallel) else 0


if __name__ == "__main__":
    sys.exit(main())
