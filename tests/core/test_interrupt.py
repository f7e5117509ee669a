"""Ctrl-C ends reprolab-train in one line and exit 130, whether it lands outside a fit (KeyboardInterrupt) or inside
one (Lightning shuts down and exits 1); a typo in a key names the nearest one."""

from __future__ import annotations

import signal
import subprocess
import sys

from tests.core.cli import PYTHONPATH, REPO_ROOT, run_cli

OUTSIDE_FIT = "raise KeyboardInterrupt"
INSIDE_FIT = """
try:
    os.kill(os.getpid(), signal.SIGINT)
    time.sleep(5)
except KeyboardInterrupt:
    sys.exit(1)  # what Lightning's trainer does after its graceful shutdown
"""
OTHER_EXIT_1 = "sys.exit(1)"


def run_train_with(body: str) -> subprocess.CompletedProcess:
    """`reprolab-train`'s main with Hydra's entry replaced by `body`."""
    code = ("import os, signal, sys, time\nimport reprolab.cli.train as train\n"
            "def fake_hydra_main():\n" + "".join(f"    {line}\n" for line in body.strip().splitlines()) +
            "train.hydra_main = fake_hydra_main\ntrain.main()\n")
    return subprocess.run([sys.executable, "-c", code], cwd=REPO_ROOT, capture_output=True, text=True, timeout=120,
                          env={"PYTHONPATH": PYTHONPATH, "OMP_NUM_THREADS": "1", "PATH": "/usr/bin:/bin"},
                          preexec_fn=ctrl_c_as_in_a_terminal)


def ctrl_c_as_in_a_terminal() -> None:
    """SIGINT's default disposition in the child, as in a terminal, also when the suite itself runs where the shell
    ignores Ctrl-C (`make test &`): reprolab-train then leaves SIGINT alone, by design."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def test_ctrl_c_outside_and_inside_a_fit_exits_130_in_one_line():
    for body in (OUTSIDE_FIT, INSIDE_FIT):
        result = run_train_with(body)
        assert result.returncode == 130, result.stderr
        assert result.stderr.strip().splitlines() == [
            "error: interrupted (Ctrl-C); finished runs keep their metrics.json: rerun the same command "
            "(a -m sweep skips finished jobs and resumes killed ones)"]


def test_an_exit_1_without_ctrl_c_is_left_as_it_is():
    result = run_train_with(OTHER_EXIT_1)
    assert result.returncode == 1 and "interrupted" not in result.stderr


def test_a_typo_in_a_key_names_the_nearest_key():
    result = run_cli("reprolab-train", "experiment=cifar10/small_sgd_cpu", "trainer.max_step=5", "print_config=false")
    assert result.returncode == 2
    (line,) = result.stderr.strip().splitlines()
    assert line.startswith("error: ") and "trainer.max_steps" in line and "Traceback" not in result.stderr
