"""A run folder is locked while a run writes to it: a second run into it is refused with one line."""

from __future__ import annotations

import pytest

from reprolab.cli.errors import RunFolderBusyError
from reprolab.run.folder import LOCK_FILE, lock_run_folder
from tests.core.cli import run_cli, small_run_args


def test_second_lock_on_a_folder_is_refused_until_released(tmp_path):
    first = lock_run_folder(tmp_path)
    with pytest.raises(RunFolderBusyError, match="is in use by another run"):
        lock_run_folder(tmp_path)
    first.close()
    lock_run_folder(tmp_path).close()


def test_train_into_a_locked_folder_is_refused_and_touches_nothing(tmp_path, cifar_folder):
    run_dir = tmp_path / "run"
    held = lock_run_folder(run_dir)  # stands for a live first run
    (run_dir / "metrics.json").write_text('{"test/acc": 0.5}')
    (run_dir / "train.log").write_text("first run's log\n")
    before = {p.name: p.read_bytes() for p in run_dir.iterdir() if p.name != LOCK_FILE}
    result = run_cli("reprolab-train", *small_run_args(run_dir, cifar_folder, "debug=fdr"))
    held.close()
    assert result.returncode == 2, result.stderr[-2000:]
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: run folder") and "in use by another run" in lines[0]
    after = {p.name: p.read_bytes() for p in run_dir.iterdir() if p.is_file() and p.name != LOCK_FILE}
    assert after.pop("train.log").startswith(before.pop("train.log"))  # Hydra appends to its log before main
    assert after == before  # no error.txt, metrics.json untouched


def test_a_single_run_into_a_finished_run_folder_is_refused_and_touches_nothing(tmp_path, cifar_folder):
    run_dir = tmp_path / "run"
    first = run_cli("reprolab-train", *small_run_args(run_dir, cifar_folder, "debug=fdr"))
    assert first.returncode == 0 and (run_dir / "metrics.json").is_file(), first.stderr[-2000:]
    before = {p: p.read_bytes() for p in run_dir.rglob("*") if p.is_file()}
    again = run_cli("reprolab-train", *small_run_args(run_dir, cifar_folder, "debug=fdr", "optimizer.lr=0.0123"))
    assert again.returncode == 2, again.stderr[-2000:]
    assert again.stderr.strip().splitlines() == [
        f"error: {run_dir} holds a finished run (metrics.json), which is never written over; leave hydra.run.dir "
        "out (a new dated folder) or name another, or move that folder away to rerun it"]
    assert {p: p.read_bytes() for p in run_dir.rglob("*") if p.is_file()} == before  # .hydra/, log and lock included
