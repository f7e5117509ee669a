"""Wall and CPU time of whole `make claim-<paper>` (or `make demo`) targets serially (JOBS=1) and with JOBS=N, side
by side in one run, and whether the claims they score come out the same as the committed `results/claims.json`.

    python scripts/bench/claim_parallel.py demo claim-degbins claim-deltamomentum --jobs 2

Each arm runs into an empty `logs/claims/<paper>` (a folder already there is set aside and put back at the end, so
no earlier run is lost or skipped); the committed results files the target rewrites are restored after each arm.
Claims are compared without their commit stamps.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
STAMPS = ("commits", "command", "generated", "git_commit")


def paper_of(target: str) -> str | None:
    return None if target == "demo" else target.removeprefix("claim-")


def run_folder(target: str) -> Path:
    return ROOT / "logs" / ("demo" if target == "demo" else f"claims/{paper_of(target)}")


def tracked_outputs(target: str) -> list[Path]:
    """The committed files a target rewrites: its paper's results/claims.json, RESULTS.md, figures."""
    paper = paper_of(target)
    if paper is None:
        return []
    out = subprocess.run(["git", "ls-files", f"experiments/{paper}/results", f"experiments/{paper}/RESULTS.md",
                          f"experiments/{paper}/figures"], cwd=ROOT, capture_output=True, text=True, check=True)
    return [ROOT / line for line in out.stdout.split()]


def without_stamps(node):
    if isinstance(node, dict):
        return {k: without_stamps(v) for k, v in node.items() if k not in STAMPS}
    if isinstance(node, list):
        return [without_stamps(v) for v in node]
    return node


def claims_of(target: str) -> dict | None:
    paper = paper_of(target)
    path = ROOT / "experiments" / str(paper) / "results" / "claims.json"
    return without_stamps(json.loads(path.read_text())) if paper and path.is_file() else None


def run_arm(target: str, jobs: int, keep: Path) -> tuple[float, float, int]:
    """(wall s, CPU s of make and everything it waited for, exit status); the runs are moved to `keep`."""
    folder = run_folder(target)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(["make", target, f"JOBS={jobs}"], cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    shutil.rmtree(keep, ignore_errors=True)
    keep.parent.mkdir(parents=True, exist_ok=True)
    if folder.exists():
        shutil.move(folder, keep)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), done.returncode


def bench(target: str, jobs: int) -> bool:
    folder, outputs = run_folder(target), tracked_outputs(target)
    saved = {path: path.read_bytes() for path in outputs if path.is_file()}
    committed = claims_of(target)
    aside = folder.with_name(folder.name + ".before-bench")
    if folder.exists():
        shutil.move(folder, aside)
    results, same = {}, True
    try:
        for arm, n in (("serial", 1), (f"JOBS={jobs}", jobs)):
            wall, cpu, status = run_arm(target, n, ROOT / "logs" / "bench" / "claims" / target / arm.replace("=", ""))
            claims = claims_of(target)
            results[arm] = (wall, cpu, status, claims)
            for path, data in saved.items():
                path.write_bytes(data)
            print(f"{target} {arm}: {wall:.1f} s wall, {cpu:.1f} s CPU, exit {status}", flush=True)
    finally:
        if aside.exists():
            shutil.rmtree(folder, ignore_errors=True)
            shutil.move(aside, folder)
    (s_wall, s_cpu, _, s_claims), (p_wall, p_cpu, _, p_claims) = results["serial"], results[f"JOBS={jobs}"]
    print(f"{target}: wall ratio {p_wall / s_wall:.2f}, CPU ratio {p_cpu / s_cpu:.2f}")
    if committed is not None:
        same = s_claims == p_claims  # the launcher's own test: both arms score the same claims
        print(f"{target}: claims {'identical' if same else 'DIFFER'} between serial and JOBS={jobs}")
        # the committed file may hold claims of other targets (e.g. claim-degbins-long), not run here: said, not judged
        print(f"{target}: serial claims {'identical to' if s_claims == committed else 'differ from'} the committed results/claims.json")
    return same


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("targets", nargs="+")
    parser.add_argument("--jobs", type=int, default=2)
    opts = parser.parse_args()
    ok = [bench(t, opts.jobs) for t in opts.targets]
    print(f"load average at the end: {os.getloadavg()[0]:.1f}")
    return 0 if all(ok) else 1


if __name__ == "__main__":
    sys.exit(main())
