"""What `reprolab/compose_cache.py` saves: process CPU with REPROLAB_COMPOSE_CACHE=0 against =1, same checkout.

    python scripts/bench/compose_cost.py                    # composing real sweeps' jobs (in this process)
    python scripts/bench/compose_cost.py --paper apt [--rounds 3]   # paper_cost's trainer slice, end to end

The first composes the master config and every job of the sweeps in tests/core/sweeps/test_compose_cache.py
(best of 2). The second runs paper_cost.py's `after` arm (the slice's sweeps chained in one process) with the
cache off and on, interleaved round by round, and checks that the runs' metrics.json agree to the bit.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from claim_cost import REPO_ROOT, child_cpu  # noqa: E402
from hetero_cost import metrics_by_run  # noqa: E402
from paper_cost import SLICES, arm_commands, load_average, tree_env  # noqa: E402

from reprolab.compose_cache import ENV  # noqa: E402
from reprolab.paths import data_root  # noqa: E402


def compose_only() -> None:
    import pytest

    from tests.core.sweeps import test_compose_cache as sweeps
    patch = pytest.MonkeyPatch()
    for name in ("APT", "DELTA_LM", "DEGRADEQUERY", "SUBDIR"):
        cpu = {False: [], True: []}
        for cache in (False, True, False, True):
            start = time.process_time()
            n = len(sweeps.compose_jobs(getattr(sweeps, name), patch, cache=cache))
            cpu[cache].append(time.process_time() - start)
        off, on = min(cpu[False]), min(cpu[True])
        print(f"{name}: {n} jobs, cache off {off:.2f} s, on {on:.2f} s CPU: {off / n * 1e3:.0f} -> {on / n * 1e3:.0f} ms a job")


def end_to_end(paper: str, rounds: int) -> None:
    cpu: dict[str, list[float]] = {"0": [], "1": []}
    with tempfile.TemporaryDirectory(prefix="compose-cost-") as tmp:
        fmt = {"data": str(data_root()), "cache": f"{tmp}/cache"}
        for r in range(rounds):
            for switch in cpu:
                env = {**tree_env(REPO_ROOT), ENV: switch}
                commands = arm_commands("after", SLICES[paper], {**fmt, "root": f"{tmp}/runs/{switch}-{r}"})
                cpu[switch].append(sum(child_cpu(cmd, REPO_ROOT, env)[0] for cmd in commands))
                print(f"round {r}: {ENV}={switch} {cpu[switch][-1]:6.1f} s CPU (load {load_average()})", flush=True)
        runs = {s: metrics_by_run(Path(tmp) / "runs" / f"{s}-0") for s in cpu}
    differ = [k for k in runs["1"] if runs["1"][k] != runs["0"].get(k)] + [k for k in runs["0"] if k not in runs["1"]]
    off, on = statistics.median(cpu["0"]), statistics.median(cpu["1"])
    print(f"{paper}: cache off {off:.1f} s ({min(cpu['0']):.1f}-{max(cpu['0']):.1f}), on {on:.1f} s "
          f"({min(cpu['1']):.1f}-{max(cpu['1']):.1f}), median of {rounds}; on/off {on / off:.3f}; "
          f"metrics.json: {len(runs['1'])} runs, {len(differ)} differ")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--paper", choices=sorted(SLICES))
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    end_to_end(args.paper, args.rounds) if args.paper else compose_only()
