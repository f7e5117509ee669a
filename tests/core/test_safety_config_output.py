"""Output that cannot be written ends with one line and exit 4, never with a truncated checkpoint,
`metrics.json` or `error.txt`; a busy run folder is refused before Hydra writes anything into it."""

from __future__ import annotations

import errno
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from reprolab.callbacks.checkpoint import AtomicCheckpointIO
from reprolab.cli.errors import StorageError, from_os_error
from reprolab.run.folder import LOCK_FILE, lock_run_folder, write_atomic, write_error
from tests.core.cli import PYTHONPATH, REPO_ROOT, run_cli

TINY = ["experiment=heteroskedastic/mve_cpu", "data=hetero_synthetic", "debug=limit", "print_config=false"]


def full_disk(*args, **kwargs):
    raise OSError(errno.ENOSPC, "No space left on device")


def test_a_failed_write_keeps_the_old_file_and_leaves_no_temporary(tmp_path, monkeypatch):
    path = write_atomic(tmp_path / "metrics.json", '{"test/acc": 0.5}')
    monkeypatch.setattr(os, "fsync", full_disk)
    with pytest.raises(OSError, match="No space left"):
        write_atomic(path, '{"test/acc": 0.9}')
    assert path.read_text() == '{"test/acc": 0.5}'
    assert sorted(p.name for p in tmp_path.iterdir()) == ["metrics.json"]


def test_error_txt_on_a_full_disk_is_absent_not_empty(tmp_path, monkeypatch):
    monkeypatch.setattr(os, "fsync", full_disk)
    assert write_error(tmp_path, "ConfigError: x") is False
    assert list(tmp_path.iterdir()) == []


def test_a_checkpoint_cut_by_a_full_disk_leaves_the_previous_one(tmp_path, monkeypatch):
    io, path = AtomicCheckpointIO(), tmp_path / "checkpoints" / "last.ckpt"
    io.save_checkpoint({"step": torch.tensor(1)}, path)
    real_save = torch.save

    def cut(obj, handle, *args, **kwargs):
        real_save(obj, handle, *args, **kwargs)
        handle.truncate(10)  # what reached the disk
        full_disk()

    monkeypatch.setattr(torch, "save", cut)
    with pytest.raises(OSError):
        io.save_checkpoint({"step": torch.tensor(2)}, path)
    assert torch.load(path, weights_only=True)["step"] == 1
    assert [p.name for p in path.parent.iterdir()] == ["last.ckpt"]


def test_storage_errors_name_the_file_and_exit_4():
    err = from_os_error(OSError(errno.ENOSPC, "No space left on device", "/runs/x/metrics.json"))
    assert isinstance(err, StorageError) and err.exit_code == 4
    assert str(err).startswith("No space left on device '/runs/x/metrics.json'; free disk space")
    other = OSError(errno.ECONNRESET, "reset")
    assert from_os_error(other) is other


RUN_WITH_FULL_DISK = """
import errno, io, sys, torch
real_save = torch.save
def cut(obj, handle, *a, **k):
    buf = io.BytesIO(); real_save(obj, buf, *a, **k); handle.write(buf.getvalue()[:100])
    raise OSError(errno.ENOSPC, "No space left on device", getattr(handle, "name", None))
torch.save = cut
from reprolab.cli.train import main
sys.argv = ["reprolab-train", *sys.argv[1:]]
main()
"""


def test_a_run_on_a_full_disk_ends_with_one_line_exit_4_and_no_truncated_file(tmp_path):
    env = {**os.environ, "PYTHONPATH": PYTHONPATH, "OMP_NUM_THREADS": "1"}
    env.pop("HYDRA_FULL_ERROR", None)
    result = subprocess.run([sys.executable, "-c", RUN_WITH_FULL_DISK, *TINY, f"hydra.run.dir={tmp_path}"],
                            cwd=REPO_ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert result.returncode == 4, result.stderr[-2000:]
    (line,) = error_lines(result)  # the first checkpoint written: the first validation's best file
    assert re.fullmatch(rf"error: No space left on device '{re.escape(str(tmp_path))}/checkpoints/best-\d+-\d+\.ckpt'; "
                        r"free disk space or write elsewhere \(hydra\.run\.dir=\.\.\., paths\.log_dir=\.\.\., or "
                        r"paths\.data_dir=\.\.\. for input\)", line), line
    assert list(tmp_path.rglob("*.ckpt")) == [] and list(tmp_path.rglob("*.tmp")) == []
    assert (tmp_path / "error.txt").read_text().startswith("StorageError: No space left on device")
    assert not (tmp_path / "metrics.json").exists()


def error_lines(result) -> list[str]:
    """The `error:` lines of stderr (Lightning's own info lines go there too); never a traceback."""
    assert "Traceback" not in result.stderr, result.stderr[-2000:]
    return [line for line in result.stderr.splitlines() if line.startswith("error:")]


def unwritable(tmp_path: Path) -> tuple[Path, Path]:
    """(an existing folder this user cannot write, a folder that cannot be created in it)."""
    if os.geteuid() == 0:  # root writes through permissions; sysfs refuses even root
        return Path("/sys/kernel"), Path("/sys/kernel/reprolab-run")
    tmp_path.chmod(0o500)
    return tmp_path, tmp_path / "run"


def test_an_output_folder_that_cannot_be_written_exits_4_with_one_line(tmp_path):
    """(A folder that cannot be created, or a file in its place: cases of test_bad_input_table.)"""
    run_dir, _ = unwritable(tmp_path)
    try:
        result = run_cli("reprolab-train", *TINY, f"hydra.run.dir={run_dir}")
    finally:
        tmp_path.chmod(0o700)
    assert result.returncode == 4, result.stderr[-2000:]
    assert result.stderr.strip().splitlines() == [
        f"error: Permission denied '{run_dir}/{LOCK_FILE}'; fix its permissions or choose another place "
        "(hydra.run.dir=..., paths.log_dir=..., or paths.data_dir=... for input)"]


def test_a_second_run_into_a_busy_folder_leaves_hydra_files_and_log_untouched(tmp_path):
    run_dir = tmp_path / "run"
    held = lock_run_folder(run_dir)  # a live first run, which already wrote its .hydra/ and log
    (run_dir / ".hydra").mkdir()
    for name in ("config.yaml", "hydra.yaml", "overrides.yaml"):
        (run_dir / ".hydra" / name).write_text(f"first run's {name}\n")
    (run_dir / "train.log").write_text("first run's log\n")
    before = {p: p.read_bytes() for p in run_dir.rglob("*") if p.is_file()}
    try:
        result = run_cli("reprolab-train", *TINY, f"hydra.run.dir={run_dir}", "seed=5")
    finally:
        held.close()
    assert result.returncode == 2, result.stderr[-2000:]
    assert result.stderr.strip().splitlines() == [f"error: run folder '{run_dir}' is in use by another run (pid "
                                                  f"{os.getpid()}); wait for it to finish or choose another hydra.run.dir"]
    assert {p: p.read_bytes() for p in run_dir.rglob("*") if p.is_file()} == before


def test_a_sweep_into_a_busy_sweep_folder_is_refused_before_any_job(tmp_path):
    held = lock_run_folder(tmp_path)
    try:
        result = run_cli("reprolab-train", "-m", *TINY, f"hydra.sweep.dir={tmp_path}", "seed=0,1")
    finally:
        held.close()
    assert result.returncode == 2, result.stderr[-2000:]
    assert result.stderr.strip().splitlines()[-1].startswith(f"error: run folder '{tmp_path}' is in use")
    assert [p.name for p in tmp_path.iterdir()] == [LOCK_FILE]  # no multirun.yaml, no job folder
