"""A real 2×2 sweep killed with SIGKILL during its third job, rerun: two jobs skipped, the killed one
resumed from its last.ckpt, the fourth started, and the same four metrics.json as an unbroken sweep."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time

import pytest
import torch

from tests.core.cli import BIN, PYTHONPATH, REPO_ROOT, run_cli

pytestmark = pytest.mark.slow
# write_interval_s=0: last.ckpt at every validation, so a job can be killed between two of them
GRID = ["-m", "experiment=cifar10/small_sgd_cpu", "print_config=false", "data.batch_size=16", "debug=limit",
        "trainer.max_epochs=3", "logger=none", "data.num_workers=0", "callbacks.last_checkpoint.write_interval_s=0",
        "optimizer.lr=0.01,0.02", "seed=0,1"]
NUMBERS = ("val/loss", "val/acc", "test/loss", "test/acc", "best/val/acc")


def sweep_args(sweep, data_dir) -> list[str]:
    return [*GRID, f"data.data_dir={data_dir}", f"paths.root_dir={sweep.parent}", f"hydra.sweep.dir={sweep}"]


def numbers(sweep) -> dict:
    return {job: {k: json.loads((sweep / job / "metrics.json").read_text())[k] for k in NUMBERS} for job in "0123"}


def test_sweep_killed_in_its_third_job_reruns_to_the_same_metrics(tmp_path, cifar_folder):
    unbroken = tmp_path / "unbroken"
    result = run_cli("reprolab-train", *sweep_args(unbroken, cifar_folder))
    assert result.returncode == 0, result.stderr[-3000:]
    assert "sweep jobs: 0 skipped, 0 resumed, 4 started" in result.stdout

    killed = tmp_path / "killed"
    env = {**os.environ, "PYTHONPATH": PYTHONPATH, "OMP_NUM_THREADS": "1"}
    proc = subprocess.Popen([str(BIN / "reprolab-train"), *sweep_args(killed, cifar_folder)], cwd=REPO_ROOT,
                            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    last = killed / "2" / "checkpoints" / "last.ckpt"
    deadline = time.time() + 600
    while not last.exists() and proc.poll() is None and time.time() < deadline:
        time.sleep(0.05)
    time.sleep(0.3)  # let the checkpoint file finish writing
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert last.exists() and not (killed / "2" / "metrics.json").exists(), "job 2 was not killed mid-run"
    assert not (killed / "3").exists()

    result = run_cli("reprolab-train", *sweep_args(killed, cifar_folder))
    assert result.returncode == 0, result.stderr[-3000:]
    assert "sweep jobs: 2 skipped, 1 resumed, 1 started" in result.stdout
    a, b = numbers(unbroken), numbers(killed)
    # exact, the resumed job too: last.ckpt is written only at validations, which here end an epoch, and it
    # holds every RNG, so the rerun draws the same batches (a mid-epoch file would not: test_requeue_slow.py)
    for job in "0123":
        assert b[job] == pytest.approx(a[job], abs=1e-6), job


def test_sigterm_writes_last_of_that_step_before_exit(tmp_path, cifar_folder):
    """Lightning's SIGTERM handler raises at the next step; LastCheckpoint.on_exception then writes last.ckpt of
    that step (write_interval_s=300: only the first validation's was written before), and the exit code says so."""
    run = tmp_path / "run"
    args = ["experiment=cifar10/small_sgd_cpu", "print_config=false", "data.batch_size=16", "debug=limit",
            "trainer.max_epochs=1000", "logger=none", "data.num_workers=0", f"data.data_dir={cifar_folder}",
            f"hydra.run.dir={run}", "callbacks.last_checkpoint.write_interval_s=300"]
    env = {**os.environ, "PYTHONPATH": PYTHONPATH, "OMP_NUM_THREADS": "1"}
    proc = subprocess.Popen([str(BIN / "reprolab-train"), *args], cwd=REPO_ROOT, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 300
    while not (run / ".hydra" / "config.yaml").exists() and proc.poll() is None and time.time() < deadline:
        time.sleep(0.1)
    time.sleep(30)  # a few epochs: last.ckpt is the first validation's (epoch 0), nothing else was due
    last = run / "checkpoints" / "last.ckpt"
    assert proc.poll() is None and torch.load(last, weights_only=False)["epoch"] == 0
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 143 and not (run / "metrics.json").exists(), err[-2000:]
    assert f"stopped by SIGTERM; resume with ckpt_path={last}" in err
    assert last.is_file(), err[-2000:]
    assert torch.load(last, weights_only=False)["epoch"] >= 1
