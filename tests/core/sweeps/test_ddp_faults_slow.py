"""A 2-process `device=ddp_cpu` run that loses a rank mid-run ends on every rank with one line within a
bounded time (a killed rank: at once; a silent one: after `device.timeout_s`), leaves no process behind, and
the rerun (`ckpt_path=`, or the same `-m` sweep) ends with the metrics of an unbroken run (the checkpoint is
an epoch end's, and DistributedSampler's order depends only on seed and epoch, so the resume is exact)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from tests.core.cli import BIN, PYTHONPATH, REPO_ROOT, run_cli, small_run_args

pytestmark = pytest.mark.slow
DDP = ["model=mlp", "debug=limit", "trainer.limit_train_batches=20", "trainer.max_epochs=3", "logger=none",
       "data.num_workers=0", "device=ddp_cpu", "callbacks.last_checkpoint.write_interval_s=0"]
NUMBERS = ("val/loss", "val/acc", "test/loss", "test/acc", "best/val/acc")


@pytest.fixture(scope="module")
def unbroken(tmp_path_factory, cifar_folder) -> dict:
    run = tmp_path_factory.mktemp("ddp") / "unbroken"
    result = run_cli("reprolab-train", *small_run_args(run, cifar_folder, *DDP))
    assert result.returncode == 0, result.stderr[-3000:]
    return json.loads((run / "metrics.json").read_text())


def hit_a_rank(run: Path, data_dir: Path, rank: int, signum: int, *extra: str, args=None) -> tuple[int, str, float]:
    """Start the run (or `args`, writing into `run`), send `signum` to `rank` once epoch 0's last.ckpt is
    written; (exit code of rank 0's process, its stderr and that of the ranks it started, seconds from the
    signal to the end)."""
    env = {**os.environ, "PYTHONPATH": PYTHONPATH, "OMP_NUM_THREADS": "1"}
    args = args or small_run_args(run, data_dir, *DDP, *extra)
    proc = subprocess.Popen([str(BIN / "reprolab-train"), *args],
                            cwd=REPO_ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 600
    while not (run / "checkpoints" / "last.ckpt").exists() and proc.poll() is None and time.time() < deadline:
        time.sleep(0.05)
    children = Path(f"/proc/{proc.pid}/task/{proc.pid}/children").read_text().split()
    assert proc.poll() is None and len(children) == 1, "the run ended before a rank could be hit"
    target = proc.pid if rank == 0 else int(children[0])
    os.kill(target, signum)
    hit = time.time()
    try:
        _, err = proc.communicate(timeout=300)  # also waits for the ranks it started (they share the pipe)
    finally:
        for pid in (proc.pid, int(children[0])):
            if Path(f"/proc/{pid}").exists() and "zombie" not in Path(f"/proc/{pid}/status").read_text():
                os.kill(pid, signal.SIGKILL)
                pytest.fail(f"process {pid} was still running")
    return proc.returncode, err, time.time() - hit


def error_lines(err: str) -> list[str]:
    return [line for line in err.splitlines() if line.startswith("error:")]


def test_a_killed_rank_ends_the_run_in_one_line_and_the_rerun_resumes_to_the_same_metrics(tmp_path, cifar_folder,
                                                                                           unbroken):
    run = tmp_path / "run"
    code, err, seconds = hit_a_rank(run, cifar_folder, 1, signal.SIGKILL)
    last = run / "checkpoints" / "last.ckpt"
    assert code == 4 and seconds < 60, (code, seconds, err[-3000:])
    (line,) = error_lines(err)
    assert line.startswith("error: rank 0 of 2: another rank is gone") and f"ckpt_path={last}" in line
    assert "Traceback" not in err and not (run / "metrics.json").exists()

    result = run_cli("reprolab-train", *small_run_args(run, cifar_folder, *DDP, f"ckpt_path={last}"))
    assert result.returncode == 0, result.stderr[-3000:]
    metrics = json.loads((run / "metrics.json").read_text())
    for key in NUMBERS:
        assert metrics[key] == pytest.approx(unbroken[key], abs=1e-6), key


def test_the_launching_rank_killed_the_other_one_ends_in_one_line(tmp_path, cifar_folder):
    code, err, seconds = hit_a_rank(tmp_path / "run", cifar_folder, 0, signal.SIGKILL)
    assert code == -signal.SIGKILL and seconds < 60, (code, seconds, err[-3000:])
    (line,) = error_lines(err)
    assert line.startswith("error: rank 1 of 2: another rank is gone") and "Traceback" not in err


def test_a_silent_rank_ends_the_run_after_device_timeout_s(tmp_path, cifar_folder):
    timeout_s = 40  # above the ~20 s a rank may take to start on a loaded machine (rendezvous shares it)
    code, err, seconds = hit_a_rank(tmp_path / "run", cifar_folder, 1, signal.SIGSTOP, f"device.timeout_s={timeout_s}")
    assert code == 4 and timeout_s - 5 < seconds < timeout_s + 60, (code, seconds, err[-3000:])
    (line,) = error_lines(err)
    assert line.startswith("error: rank 0 of 2: another rank is gone") and "Timed out" in line


def test_a_ddp_sweep_with_a_rank_killed_in_its_second_job_reruns_to_the_same_metrics(tmp_path, cifar_folder):
    """Lightning's extra rank re-runs the `-m` command in step with rank 0 (its Hydra relaunch): it makes the
    same skip/resume decisions, and a rank lost in job 1 ends the whole sweep, which a rerun finishes."""
    def sweep_args(sweep):
        return ["-m", "experiment=cifar10/small_sgd_cpu", f"data.data_dir={cifar_folder}", "print_config=false",
                "data.batch_size=16", *DDP, f"paths.root_dir={tmp_path}", f"hydra.sweep.dir={sweep}", "seed=0,1"]

    def numbers(sweep):
        return [{k: json.loads((sweep / job / "metrics.json").read_text())[k] for k in NUMBERS} for job in "01"]

    unbroken, killed = tmp_path / "unbroken", tmp_path / "killed"
    result = run_cli("reprolab-train", *sweep_args(unbroken))
    assert result.returncode == 0, result.stderr[-3000:]
    assert [ln for ln in result.stdout.splitlines() if ln.startswith("sweep jobs:")] == [
        "sweep jobs: 0 skipped, 0 resumed, 2 started"]  # rank 0's line only

    code, err, seconds = hit_a_rank(killed / "1", cifar_folder, 1, signal.SIGKILL, args=sweep_args(killed))
    assert code == 4 and seconds < 60 and len(error_lines(err)) == 1, (code, seconds, err[-3000:])
    assert (killed / "0" / "metrics.json").is_file() and not (killed / "1" / "metrics.json").exists()

    result = run_cli("reprolab-train", *sweep_args(killed))
    assert result.returncode == 0, result.stderr[-3000:]
    assert "sweep jobs: 1 skipped, 1 resumed, 0 started" in result.stdout
    for a, b in zip(numbers(unbroken), numbers(killed), strict=True):
        assert b == pytest.approx(a, abs=1e-6)
