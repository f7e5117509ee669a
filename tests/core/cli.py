"""Run the console scripts in a subprocess, as a user would."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
# This checkout's src/ first: an editable install elsewhere (e.g. the main worktree's) must not win.
PYTHONPATH = os.pathsep.join([str(REPO_ROOT / "src"), str(REPO_ROOT)])


def run_cli(script: str, *args: str, env: dict | None = None, timeout: int = 600) -> subprocess.CompletedProcess:
    """`env` entries set to None are removed from the environment."""
    full_env = {**os.environ, "PYTHONPATH": PYTHONPATH, "OMP_NUM_THREADS": "1", **(env or {})}
    full_env = {k: v for k, v in full_env.items() if v is not None}
    return subprocess.run([str(BIN / script), *args], cwd=REPO_ROOT, env=full_env, capture_output=True,
                          text=True, timeout=timeout)


def small_run_args(run_dir: Path, data_dir: Path, *extra: str) -> list[str]:
    """The tiny CIFAR-folder experiment on a few batches, in `run_dir`, printing no config tree."""
    return ["experiment=cifar10/small_sgd_cpu", f"data.data_dir={data_dir}", f"hydra.run.dir={run_dir}",
            "print_config=false", "data.batch_size=16", *extra]
