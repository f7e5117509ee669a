"""Run the console scripts as a user would: in a process of their own, with their argv, environment, working folder,
stdout, stderr and exit status.

By default the process is forked from the test worker, which has already imported torch, Lightning and Hydra: the
console script's `main()` then starts in well under a second instead of paying ~5-10 s of imports per call, and a
test sees what the script prints and returns exactly as from a fresh interpreter (logging's stream handlers are
pointed at the new stdout/stderr). `fresh=True` runs the installed console script in a new interpreter instead,
for what only a fresh one shows (its imports, the entry point itself).
"""

from __future__ import annotations

import importlib
import logging
import os
import signal
import subprocess
import sys
import tempfile
import time
import traceback
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
# This checkout's src/ first: an editable install elsewhere (e.g. the main worktree's) must not win.
PYTHONPATH = os.pathsep.join([str(REPO_ROOT / "src"), str(REPO_ROOT)])
ENTRY_POINTS = {"reprolab-train": "reprolab.cli.train", "reprolab-eval": "reprolab.cli.eval",
                "reprolab-table": "reprolab.cli.table", "reprolab-dashboard": "reprolab.cli.dashboard",
                "reprolab-claims": "reprolab.cli.claims"}  # pyproject.toml's [project.scripts], all `:main`


def run_cli(script: str, *args: str, env: dict | None = None, timeout: int = 600, cwd: Path = REPO_ROOT,
            fresh: bool = False) -> subprocess.CompletedProcess:
    """`env` entries set to None are removed from the environment."""
    full_env = {**os.environ, "PYTHONPATH": PYTHONPATH, "OMP_NUM_THREADS": "1", **(env or {})}
    full_env = {k: v for k, v in full_env.items() if v is not None}
    if fresh or script not in ENTRY_POINTS:
        return subprocess.run([str(BIN / script), *args], cwd=cwd, env=full_env, capture_output=True, text=True,
                              timeout=timeout)
    return run_forked(script, list(args), full_env, Path(cwd), timeout)


def run_forked(script: str, args: list[str], env: dict[str, str], cwd: Path, timeout: float) -> subprocess.CompletedProcess:
    importlib.import_module(ENTRY_POINTS[script])  # once per worker: what the children then start with
    with tempfile.TemporaryDirectory(prefix="run-cli-") as tmp:
        out, err = Path(tmp, "stdout"), Path(tmp, "stderr")
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:
            _child(script, args, env, cwd, out, err)  # never returns
        deadline = time.monotonic() + timeout
        while True:
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                break
            if time.monotonic() > deadline:
                os.killpg(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
                raise subprocess.TimeoutExpired([script, *args], timeout, out.read_text(), err.read_text())
            time.sleep(0.02)
        code = os.waitstatus_to_exitcode(status)
        return subprocess.CompletedProcess([str(BIN / script), *args], code, out.read_text(), err.read_text())


def _child(script: str, args: list[str], env: dict[str, str], cwd: Path, out: Path, err: Path) -> None:
    code = 1
    try:
        os.setpgid(0, 0)  # its own group: a timeout kills it with what it started
        old = {id(s) for s in (sys.stdout, sys.stderr, sys.__stdout__, sys.__stderr__)}
        for fd, path in ((1, out), (2, err)):
            target = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
            os.dup2(target, fd)
            os.close(target)
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        sys.stdin = open(0, closefd=False)  # noqa: SIM115 - the process's stdin for its lifetime
        sys.stdout = open(1, "w", closefd=False)  # noqa: SIM115
        sys.stderr = open(2, "w", closefd=False)  # noqa: SIM115
        _repoint_log_handlers(old)
        os.environ.clear()
        os.environ.update(env)
        os.chdir(cwd)
        import torch
        from hydra.core.global_hydra import GlobalHydra

        torch.set_num_threads(int(env.get("OMP_NUM_THREADS", "1")))
        GlobalHydra.instance().clear()
        sys.argv = [str(BIN / script), *args]
        main = importlib.import_module(ENTRY_POINTS[script]).main
        try:
            result = main()
            code = result if isinstance(result, int) else 0
        except SystemExit as stop:  # what the interpreter makes of sys.exit(...)
            code = stop.code if isinstance(stop.code, int) else (0 if stop.code is None else 1)
            if not isinstance(stop.code, int | None):
                print(stop.code, file=sys.stderr)
        except BaseException:  # noqa: BLE001 - an uncaught error: its traceback and exit 1
            traceback.print_exc()
            code = 1
        logging.shutdown()
        sys.stdout.flush()
        sys.stderr.flush()
    except BaseException:  # noqa: BLE001 - the harness itself failed: say so on the child's stderr
        traceback.print_exc()
    finally:
        os._exit(code)


def _repoint_log_handlers(old_streams: set[int]) -> None:
    """Logging as a fresh interpreter has it: no handler on the root logger (pytest's capture handlers go), and the
    stream handlers made at import (Lightning's) writing to the child's stdout/stderr, not the worker's captures."""
    root = logging.getLogger()
    for handler in list(root.handlers):
        root.removeHandler(handler)
    for logger in logging.Logger.manager.loggerDict.values():
        if not isinstance(logger, logging.Logger):
            continue
        for handler in list(logger.handlers):
            if type(handler).__module__.startswith("_pytest"):
                logger.removeHandler(handler)
            elif type(handler) is logging.StreamHandler and id(handler.stream) in old_streams:
                handler.setStream(sys.stderr)  # logging's default stream


def small_run_args(run_dir: Path, data_dir: Path, *extra: str) -> list[str]:
    """The tiny CIFAR-folder experiment on a few batches, in `run_dir`, printing no config tree."""
    return ["experiment=cifar10/small_sgd_cpu", f"data.data_dir={data_dir}", f"hydra.run.dir={run_dir}",
            "print_config=false", "data.batch_size=16", *extra]
