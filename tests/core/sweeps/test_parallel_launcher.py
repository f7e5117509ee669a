"""`hydra/launcher=parallel`: a sweep's jobs in forked worker processes give the serial run's folders and metrics,
a failed job stops no other, a rerun skips what finished, and the tables read it as any sweep."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time

import pytest

from tests.core.cli import BIN, PYTHONPATH, REPO_ROOT, run_cli

SWEEP = ["-m", "experiment=deltamomentum/regression_sgdm", "trainer.max_steps=30", "optimizer.lr=0.1,0.5",
         "seed=0,1", "logger=csv", "print_config=false"]
PARALLEL = ["hydra/launcher=parallel", "hydra.launcher.n_jobs=2"]


def metrics(sweep) -> dict[str, dict]:
    return {p.parent.name: {k: v for k, v in json.loads(p.read_text()).items() if k not in ("git_commit", "best_ckpt")}
            for p in sorted(sweep.glob("*/metrics.json"))}


def test_parallel_jobs_give_the_serial_metrics_and_a_rerun_skips_them(tmp_path):
    serial = run_cli("reprolab-train", *SWEEP, f"hydra.sweep.dir={tmp_path / 'serial'}")
    parallel = run_cli("reprolab-train", *SWEEP, *PARALLEL, f"hydra.sweep.dir={tmp_path / 'parallel'}")
    assert serial.returncode == parallel.returncode == 0, parallel.stderr[-2000:]
    assert "Launching 4 jobs, 2 at a time" in parallel.stderr + parallel.stdout
    assert metrics(tmp_path / "parallel") == metrics(tmp_path / "serial") != {}
    assert len(metrics(tmp_path / "parallel")) == 4
    report = json.loads((tmp_path / "parallel" / "sweep_report.json").read_text())
    assert (report["n_finished"], report["n_failed"], report["n_incomplete"]) == (4, 0, 0)
    again = run_cli("reprolab-train", *SWEEP, *PARALLEL, f"hydra.sweep.dir={tmp_path / 'parallel'}")
    assert again.returncode == 0 and "sweep jobs: 4 skipped, 0 resumed, 0 started" in again.stdout
    table = run_cli("reprolab-table", str(tmp_path / "parallel"), "--group-by", "optimizer.lr", "--metric",
                    "test/loss", "--no-curves")
    assert table.returncode == 0 and "4 finished, 0 not finished" in table.stdout and "| 0.5 |" in table.stdout


def test_a_failed_job_stops_no_other_and_the_sweep_exits_non_zero(tmp_path):
    result = run_cli("reprolab-train", "-m", "experiment=deltamomentum/regression_sgdm", "trainer.max_steps=20",
                     "optimizer.lr=0.1,-1.0,0.5", "logger=csv", "print_config=false", *PARALLEL,
                     f"hydra.sweep.dir={tmp_path}")
    assert result.returncode == 2, result.stderr[-2000:]
    assert sorted(p.parent.name for p in tmp_path.glob("*/metrics.json")) == ["0", "2"]
    assert "optimizer.lr" in (tmp_path / "1" / "error.txt").read_text()
    report = json.loads((tmp_path / "sweep_report.json").read_text())
    assert (report["n_finished"], report["n_failed"]) == (2, 1)
    assert result.stderr.strip().splitlines()[-1].startswith("error: ")


@pytest.mark.slow
def test_ctrl_c_stops_the_workers_and_a_rerun_finishes_the_rest(tmp_path):
    env = {**os.environ, "PYTHONPATH": PYTHONPATH, "OMP_NUM_THREADS": "1"}
    args = ["-m", "experiment=deltamomentum/regression_sgdm", "seed=0,1,2,3,4,5", "logger=csv", "print_config=false",
            *PARALLEL, f"hydra.sweep.dir={tmp_path}"]
    proc = subprocess.Popen([str(BIN / "reprolab-train"), *args], cwd=REPO_ROOT, env=env, start_new_session=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 300
    while not list(tmp_path.glob("*/metrics.json")) and time.monotonic() < deadline:
        time.sleep(0.5)
    os.killpg(proc.pid, signal.SIGINT)  # what a terminal's Ctrl-C sends: the whole foreground group
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err[-2000:]
    finished = {p.parent.name for p in tmp_path.glob("*/metrics.json")}
    assert 1 <= len(finished) < 6
    rerun = run_cli("reprolab-train", *args)
    assert rerun.returncode == 0, rerun.stderr[-2000:]
    assert f"sweep jobs: {len(finished)} skipped" in rerun.stdout
    assert len(list(tmp_path.glob("*/metrics.json"))) == 6


def test_the_launcher_overrides_before_the_multirun_flag_as_make_claim_jobs_2_writes_them(tmp_path):
    """`make claim-* JOBS=2` runs `reprolab-train hydra/launcher=parallel hydra.launcher.n_jobs=2 -m …`: Hydra's
    parser alone refuses overrides on both sides of `-m`."""
    done = run_cli("reprolab-train", *PARALLEL, *SWEEP, f"hydra.sweep.dir={tmp_path}")
    assert done.returncode == 0, done.stderr[-2000:]
    assert "Launching 4 jobs, 2 at a time" in done.stderr + done.stdout
    assert len(list(tmp_path.glob("*/metrics.json"))) == 4


def test_make_claim_recipes_put_the_launcher_where_reprolab_train_takes_it():
    recipe = subprocess.run(["make", "-n", "--no-print-directory", "claim-degbins", "JOBS=2", "VENV=.venv"], cwd=REPO_ROOT,
                            capture_output=True, text=True, check=True).stdout
    line = next(line for line in recipe.splitlines() if "reprolab-train" in line)
    assert "hydra/launcher=parallel hydra.launcher.n_jobs=2" in line and " -m " in line
