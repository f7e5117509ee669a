"""A run whose stdout is a pipe (SLURM, CI): progress lines in train.log, the whole config, no known noise."""

from __future__ import annotations

import re

import pytest

from reprolab.callbacks.progress_log import ProgressLog, progress_line
from tests.core.cli import run_cli, small_run_args

PROGRESS = re.compile(r"step \d+/8 \(\d+%\) epoch [01] loss [\d.]+ [\d.]+ it/s ETA \d+:\d\d:\d\d")


def test_progress_line_by_hand():
    assert progress_line(120, 1000, 2, 0.53214, 4.0) == "step 120/1000 (12%) epoch 2 loss 0.5321 4 it/s ETA 0:03:40"
    assert progress_line(7, float("inf"), 0, None, 2.5) == "step 7 epoch 0 2.5 it/s ETA ?"


def test_unknown_when_is_refused():
    with pytest.raises(ValueError, match="choose one of"):
        ProgressLog(when="sometimes")


def test_piped_run_logs_progress_full_config_and_no_noise(tmp_path, cifar_folder):
    long_value = "x" * 150
    run = tmp_path / "run"
    args = small_run_args(run, cifar_folder, "debug=limit", "print_config=true", "callbacks.progress_log.interval_s=0",
                          f"+notes={long_value}")
    result = run_cli("reprolab-train", *args)  # capture_output: stdout is a pipe, not a terminal
    assert result.returncode == 0, result.stderr[-3000:]
    log = (run / "train.log").read_text()
    assert len(PROGRESS.findall(log)) == 8 and "Seed set to 0" in log  # ours and Lightning's records
    assert long_value in result.stdout  # the config tree is not cut at 80 columns
    output = result.stdout + result.stderr + log
    assert "litlogger" not in output and "LeafSpec" not in output
