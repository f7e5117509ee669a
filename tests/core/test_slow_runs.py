"""Slow end-to-end checks: DDP over two CPU processes, and resuming a killed run (`make test-slow`)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time

import pytest
import torch

from tests.core.cli import BIN, PYTHONPATH, REPO_ROOT, run_cli, small_run_args

pytestmark = pytest.mark.slow
DETERMINISTIC = ["model=mlp", "data.augment=false", "scheduler=constant", "debug=limit",
                 "trainer.max_epochs=1", "trainer.limit_train_batches=4", "trainer.limit_val_batches=1.0",
                 "trainer.limit_test_batches=1.0", "logger=none", "optimizer.lr=0.02"]


def metrics_of(run_dir):
    return json.loads((run_dir / "metrics.json").read_text())


def test_ddp_cpu_matches_single_process(tmp_path, cifar_folder):
    single, ddp = tmp_path / "single", tmp_path / "ddp"
    one = run_cli("reprolab-train", *small_run_args(single, cifar_folder, *DETERMINISTIC, "data.batch_size=32"))
    assert one.returncode == 0, one.stderr[-3000:]
    two = run_cli("reprolab-train", *small_run_args(ddp, cifar_folder, *DETERMINISTIC, "data.batch_size=16",
                                                    "device=ddp_cpu"))
    assert two.returncode == 0, two.stderr[-3000:]
    a, b = metrics_of(single), metrics_of(ddp)
    assert b["val/loss"] == pytest.approx(a["val/loss"], abs=1e-5)
    assert b["test/loss"] == pytest.approx(a["test/loss"], abs=1e-5)


# write_interval_s=0: last.ckpt at every validation, so the run can be killed between two of them
RESUMABLE = ["debug=limit", "trainer.max_epochs=3", "logger=none", "data.num_workers=0",
             "callbacks.last_checkpoint.write_interval_s=0"]


def test_killed_run_resumes_to_same_metrics(tmp_path, cifar_folder):
    unbroken = tmp_path / "unbroken"
    result = run_cli("reprolab-train", *small_run_args(unbroken, cifar_folder, *RESUMABLE))
    assert result.returncode == 0, result.stderr[-3000:]

    killed = tmp_path / "killed"
    env = {**os.environ, "PYTHONPATH": PYTHONPATH, "OMP_NUM_THREADS": "1"}
    proc = subprocess.Popen([str(BIN / "reprolab-train"), *small_run_args(killed, cifar_folder, *RESUMABLE)],
                            cwd=REPO_ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    last = killed / "checkpoints" / "last.ckpt"
    deadline = time.time() + 300
    while not last.exists() and proc.poll() is None and time.time() < deadline:
        time.sleep(0.05)
    time.sleep(0.3)  # let the checkpoint file finish writing
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert not (killed / "metrics.json").exists(), "the run finished before it could be killed"
    epoch = torch.load(last, weights_only=False)["epoch"]
    assert epoch < 2

    resumed = tmp_path / "resumed"
    result = run_cli("reprolab-train", *small_run_args(resumed, cifar_folder, *RESUMABLE, f"ckpt_path={last}"))
    assert result.returncode == 0, result.stderr[-3000:]
    a, b = metrics_of(unbroken), metrics_of(resumed)
    for key in ("val/loss", "val/acc", "test/loss", "test/acc", "best/val/acc"):
        assert b[key] == pytest.approx(a[key], abs=1e-6), key
