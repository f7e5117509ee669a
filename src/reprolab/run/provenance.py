"""Which code a run came from: the git commit of the checkout (and whether it had local edits).

Recorded in every `metrics.json`, so a scorecard row can name the commit its runs were made at, with the number of
torch intra-op threads the run trained on: on CPU that number changes the order of floating-point reductions, so the
same commit and seed give results that differ in the last digits (APT's digits runs: one test digit in 500) and
chaotic runs differ further. The claim targets pin it to 1 (`OMP_NUM_THREADS=1`); a run made without that is told
apart by this stamp.
"""

from __future__ import annotations

import functools
import subprocess

from reprolab.config.compose import REPO_ROOT

# What the report commands rewrite, which no run reads: each claim target's RESULTS.md blocks and results/claims.json,
# its figures, REPRODUCTIONS.md and `make plan`'s plan.json. Edits there do not make a run "+dirty"; otherwise every
# paper after the first of `make claim-all` would be stamped dirty by the papers before it.
REPORTS = ("*.md", "plan.json", "experiments/*/results/*", "experiments/*/figures/*")


@functools.cache
def git_commit() -> str | None:
    """`<sha>`, `<sha>+dirty` (a tracked file other than the `REPORTS` has local edits), or `<sha>+unchecked` when
    `git status` failed or timed out (a loaded machine); None outside a git checkout or without git."""
    try:
        sha = subprocess.run(["git", "rev-parse", "HEAD"], cwd=REPO_ROOT, capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return None
    if sha.returncode != 0:
        return None
    try:
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no", "--", ".",
                                *(f":(exclude){pattern}" for pattern in REPORTS)],
                               cwd=REPO_ROOT, capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.SubprocessError):
        return sha.stdout.strip() + "+unchecked"
    if dirty.returncode != 0:
        return sha.stdout.strip() + "+unchecked"
    return sha.stdout.strip() + ("+dirty" if dirty.stdout.strip() else "")


def torch_threads() -> int:
    """The intra-op thread count this process trains on (`torch.get_num_threads()`, set by `OMP_NUM_THREADS` or the
    parallel launcher's `torch.set_num_threads`)."""
    import torch

    return torch.get_num_threads()
