"""Which code a run came from: the git commit of the checkout (and whether it had local edits).

Recorded in every `metrics.json`, so a scorecard row can name the commit its runs were made at.
"""

from __future__ import annotations

import functools
import subprocess

from reprolab.config import REPO_ROOT


@functools.cache
def git_commit() -> str | None:
    """`<sha>`, `<sha>+dirty`, or `<sha>+unchecked` when `git status` failed or timed out (a loaded machine);
    None outside a git checkout or without git."""
    try:
        sha = subprocess.run(["git", "rev-parse", "HEAD"], cwd=REPO_ROOT, capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return None
    if sha.returncode != 0:
        return None
    try:
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=REPO_ROOT,
                               capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.SubprocessError):
        return sha.stdout.strip() + "+unchecked"
    if dirty.returncode != 0:
        return sha.stdout.strip() + "+unchecked"
    return sha.stdout.strip() + ("+dirty" if dirty.stdout.strip() else "")
