"""Every console script in pyproject's [project.scripts], piped into a reader that has already closed the pipe
(`reprolab-eval --help | head -1`), ends quietly with 141 (128 + SIGPIPE): no traceback, no error line. (argparse's
own `--help` already ignores a failed write and exits 0.)"""

from __future__ import annotations

import importlib
import os
import subprocess
import sys

import pytest
import tomllib

from reprolab.cli.closed_stdout import CLOSED_STDOUT_EXIT, is_closed_pipe, quiet_on_closed_stdout
from tests.core.cli import BIN, PYTHONPATH, REPO_ROOT

SCRIPTS = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text())["project"]["scripts"]


def into_closed_pipe(args: list[str], cwd=REPO_ROOT) -> subprocess.CompletedProcess:
    """Run `args` with stdout a pipe whose reader closed before the first write."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    env = {**os.environ, "PYTHONPATH": PYTHONPATH, "OMP_NUM_THREADS": "1"}
    try:
        return subprocess.run(args, stdout=write_end, stderr=subprocess.PIPE, text=True, cwd=cwd, env=env,
                              timeout=300)
    finally:
        os.close(write_end)


def test_every_console_script_is_wrapped_by_the_shared_helper():
    shared = quiet_on_closed_stdout(print).__code__
    for script, target in SCRIPTS.items():
        module, function = target.split(":")
        assert getattr(importlib.import_module(module), function).__code__ is shared, script


@pytest.mark.parametrize("args", [["reprolab-train", "--help"], ["reprolab-eval", "--help"],
                                  ["reprolab-dashboard", "--list"], ["python", "-m", "reprolab.sweeps.rehash", "."]])
def test_output_into_a_closed_pipe_ends_quietly(args, tmp_path):
    """Hydra's help (printed inside the app), argparse scripts' normal output (still buffered at the end)."""
    program = [sys.executable] if args[0] == "python" else [str(BIN / args[0])]
    proc = into_closed_pipe([*program, *args[1:]], cwd=tmp_path)
    assert (proc.returncode, proc.stderr) == (CLOSED_STDOUT_EXIT, "")


def test_an_open_stdout_and_other_errors_are_left_as_they_are(capsys):
    assert quiet_on_closed_stdout(lambda: print("kept") or 3)() == 3
    assert capsys.readouterr().out == "kept\n"
    with pytest.raises(ValueError, match="not a pipe error"):
        quiet_on_closed_stdout(lambda: (_ for _ in ()).throw(ValueError("not a pipe error")))()


@pytest.mark.parametrize("sweep", [False, True])
def test_a_training_run_into_a_closed_pipe_ends_quietly(sweep, tmp_path):
    """Its log records (Hydra's console handler), Lightning's constructor (wrapped by instantiate), the sweep."""
    where = ["-m", f"hydra.sweep.dir={tmp_path / 'sweep'}", "seed=0,1"] if sweep else [f"hydra.run.dir={tmp_path / 'run'}"]
    args = [*where, "experiment=deltamomentum/regression_sgdm", "trainer.max_steps=3", "logger=none"]
    proc = into_closed_pipe([str(BIN / "reprolab-train"), *args], cwd=tmp_path)
    assert (proc.returncode, proc.stderr) == (CLOSED_STDOUT_EXIT, "")  # was 1, and a "--- Logging error ---" each record


def test_a_closed_pipe_is_found_inside_the_exception_that_wraps_it():
    try:
        try:
            raise BrokenPipeError(32, "Broken pipe")
        except BrokenPipeError as err:
            raise RuntimeError("Error in call to target 'lightning.Trainer'") from err
    except RuntimeError as wrapped:
        assert is_closed_pipe(wrapped) and not is_closed_pipe(RuntimeError("other"))
