"""The scheduler's requeue signal (SIGUSR2) reaches a real `reprolab-train -m` job mid-epoch: it writes
last.ckpt of that step and stops; started again in the same folder (by hand, or by submitit's own requeue)
it resumes and ends where an unbroken run ends.

A resume from a mid-epoch checkpoint is not bit-identical to the unbroken run: Lightning restores the
weights, optimizer, RNGs and loop counters and runs exactly the steps left (the step count is checked
exactly), but the train loader is not resumable, so the rest of the interrupted epoch draws its batches
from the start of a fresh shuffle instead of the batches the killed run had not seen yet. That is a
different data order for less than one epoch, the same kind of perturbation as a different shuffle seed;
the numbers are compared within TOLERANCE, far below what a lost or repeated epoch would move them."""

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
BATCHES = 40  # per epoch, so the signal lands well inside epoch 1
JOB = ["-m", "experiment=cifar10/small_sgd_cpu", "print_config=false", "data.batch_size=16", "debug=limit",
       f"trainer.limit_train_batches={BATCHES}", "trainer.max_epochs=2", "logger=none", "data.num_workers=0",
       "callbacks.last_checkpoint.write_interval_s=0", "seed=0"]
FAKE_SLURM = {"SLURM_JOB_ID": "4242", "SLURM_JOB_NAME": "reprolab", "SLURM_NTASKS": "1", "SLURM_NNODES": "1",
              "SLURM_NTASKS_PER_NODE": "1", "SLURM_PROCID": "0", "SLURM_LOCALID": "0", "SLURM_NODEID": "0",
              "SLURM_NODELIST": "localhost"}  # Lightning then runs under its SLURMEnvironment, as on a cluster
TOLERANCE = {"val/loss": 0.05, "test/loss": 0.05, "val/acc": 0.05, "test/acc": 0.05}  # relative, absolute


def job_args(sweep, data_dir, *extra) -> list[str]:
    return [*JOB, f"data.data_dir={data_dir}", f"paths.root_dir={sweep.parent}", f"hydra.sweep.dir={sweep}", *extra]


@pytest.fixture(scope="module")
def unbroken(tmp_path_factory, cifar_folder) -> dict:
    sweep = tmp_path_factory.mktemp("requeue") / "unbroken"
    result = run_cli("reprolab-train", *job_args(sweep, cifar_folder))
    assert result.returncode == 0, result.stderr[-3000:]
    return json.loads((sweep / "0" / "metrics.json").read_text())


def signal_mid_epoch(proc: subprocess.Popen, job_dir) -> None:
    """SIGUSR2 to the job's process (its pid is in the run folder's lock) once epoch 0's last.ckpt is written."""
    deadline = time.time() + 600
    while not (job_dir / "checkpoints" / "last.ckpt").exists() and proc.poll() is None and time.time() < deadline:
        time.sleep(0.05)
    assert proc.poll() is None, "the job ended before it could be signalled"
    os.kill(int((job_dir / ".lock").read_text()), signal.SIGUSR2)


def assert_same_run(metrics: dict, unbroken: dict, resumed_from) -> None:
    step = torch.load(resumed_from, weights_only=False)["global_step"]  # the file the rerun resumed from
    assert BATCHES < step < 2 * BATCHES, f"checkpoint at step {step} is not inside epoch 1"
    for key, tol in TOLERANCE.items():
        scale = abs(unbroken[key]) if "loss" in key else 1.0
        assert abs(metrics[key] - unbroken[key]) <= tol * scale, (key, metrics[key], unbroken[key])


def test_sigusr2_stops_the_job_with_its_checkpoint_and_a_rerun_resumes_it(tmp_path, cifar_folder, unbroken):
    sweep, env = tmp_path / "sweep", {**os.environ, "PYTHONPATH": PYTHONPATH, "OMP_NUM_THREADS": "1", **FAKE_SLURM}
    proc = subprocess.Popen([str(BIN / "reprolab-train"), *job_args(sweep, cifar_folder)], cwd=REPO_ROOT, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    signal_mid_epoch(proc, sweep / "0")
    _, err = proc.communicate(timeout=300)
    last = sweep / "0" / "checkpoints" / "last.ckpt"
    assert proc.returncode == 128 + signal.SIGUSR2, err[-3000:]
    assert f"stopped by SIGUSR2; resume with ckpt_path={last}" in err
    assert not (sweep / "0" / "metrics.json").exists()
    kept = tmp_path / "kept.ckpt"
    kept.write_bytes(last.read_bytes())  # the resumed run overwrites last.ckpt with its final state

    result = run_cli("reprolab-train", *job_args(sweep, cifar_folder), env=FAKE_SLURM)
    assert result.returncode == 0, result.stderr[-3000:]
    assert "sweep jobs: 0 skipped, 1 resumed, 0 started" in result.stdout
    metrics = json.loads((sweep / "0" / "metrics.json").read_text())
    assert_same_run(metrics, unbroken, kept)


def test_submitit_requeues_the_signalled_job_which_resumes_in_the_same_folder(tmp_path, cifar_folder, unbroken):
    """hydra/launcher=submitit_local: submitit's own handler gets the signal after the checkpoint, requeues the
    job (its local controller restarts it, as SLURM would), and the one sweep command ends with the metrics."""
    sweep, env = tmp_path / "sweep", {**os.environ, "PYTHONPATH": PYTHONPATH, "OMP_NUM_THREADS": "1"}
    args = job_args(sweep, cifar_folder, "hydra/launcher=submitit_local", "hydra.launcher.timeout_min=30")
    proc = subprocess.Popen([str(BIN / "reprolab-train"), *args], cwd=REPO_ROOT, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    signal_mid_epoch(proc, sweep / "0")
    deadline = time.time() + 300
    while "Requeued job" not in submitit_logs(sweep) and proc.poll() is None and time.time() < deadline:
        time.sleep(0.05)
    kept = tmp_path / "kept.ckpt"  # copied while the restarted job imports torch, before it writes again
    kept.write_bytes((sweep / "0" / "checkpoints" / "last.ckpt").read_bytes())
    out, err = proc.communicate(timeout=600)
    assert proc.returncode == 0, err[-3000:]
    assert "sweep jobs: 0 skipped, 1 resumed, 0 started" in out
    assert "resuming from" in submitit_logs(sweep)
    metrics = json.loads((sweep / "0" / "metrics.json").read_text())
    assert_same_run(metrics, unbroken, kept)


def submitit_logs(sweep) -> str:
    return "".join(p.read_text() for p in (sweep / ".submitit").rglob("*_log.*"))
