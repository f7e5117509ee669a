"""W&B online without a reachable server: one warning line, the run logs offline; secrets never reach its files."""

from __future__ import annotations

import socket
import sys
import time

import pytest

from reprolab.run.loggers import _reachable, masked_argv
from tests.core.cli import run_cli, small_run_args
from tests.core.wandb_records import logged_keys, read_records

WARNING = "warning: W&B online is unavailable"


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_the_probe_tells_a_closed_port_from_a_listening_one_quickly():
    start = time.monotonic()
    assert not _reachable(f"http://127.0.0.1:{closed_port()}", timeout_s=5)
    assert time.monotonic() - start < 5
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen(1)
        assert _reachable(f"http://127.0.0.1:{server.getsockname()[1]}", timeout_s=5)


def test_masked_argv_masks_secret_assignments_and_restores_the_command_line(monkeypatch):
    monkeypatch.setattr(sys, "argv", ["reprolab-train", "+my_api_token=abc123", "seed=1"])
    with masked_argv():
        assert sys.argv == ["reprolab-train", "+my_api_token=***", "seed=1"]
    assert sys.argv[1] == "+my_api_token=abc123"


def test_online_without_a_server_logs_offline_with_one_warning_and_no_secret(tmp_path, cifar_folder):
    run = tmp_path / "run"
    env = {"WANDB_MODE": "online", "WANDB_BASE_URL": f"http://127.0.0.1:{closed_port()}",
           "WANDB_API_KEY": "k" * 40, "WANDB_DIR": str(tmp_path / "wandb-dir")}
    args = small_run_args(run, cifar_folder, "debug=limit", "trainer.max_epochs=1", "logger=wandb",
                          "+my_api_token=abc123")
    result = run_cli("reprolab-train", *args, env=env, timeout=600)
    assert result.returncode == 0, result.stderr[-3000:]
    assert [line for line in result.stderr.splitlines() if line.startswith("warning: W&B")] == [
        f"{WARNING} (no connection to {env['WANDB_BASE_URL']} within 5 s); logging offline instead, upload later "
        "with `make wandb-sync`"]
    [offline] = list((run / "wandb").glob("offline-run-*/run-*.wandb"))
    assert {"val/acc", "test/acc"} <= logged_keys(read_records(offline), "history")
    assert b"+my_api_token=***" in offline.read_bytes()  # the recorded command line, masked
    leaked = [str(p) for p in tmp_path.rglob("*") if p.is_file() and b"abc123" in p.read_bytes()]
    assert leaked == []


SLOW_SERVER = """
import socket, sys, time
from omegaconf import OmegaConf
server = socket.socket(); server.bind(("127.0.0.1", 0)); server.listen(16)  # accepts, never answers
import os
os.environ["WANDB_BASE_URL"] = f"http://127.0.0.1:{server.getsockname()[1]}"
from reprolab.run.loggers import build_loggers
cfg = {"_target_": "lightning.pytorch.loggers.WandbLogger", "project": "p", "save_dir": sys.argv[1], "init_timeout_s": 3}
start = time.monotonic()
[logger] = build_loggers(OmegaConf.create({"wandb": cfg}))
print("started", logger.experiment.settings.mode, round(time.monotonic() - start), flush=True)
os._exit(0)  # W&B's exit hook would wait for the failed online attempt's retries
"""


@pytest.mark.slow
def test_a_server_that_never_answers_falls_back_after_the_init_timeout(tmp_path):
    env = {"WANDB_MODE": "online", "WANDB_API_KEY": "k" * 40, "WANDB_DIR": str(tmp_path)}
    result = run_cli(sys.executable, "-c", SLOW_SERVER, str(tmp_path), env=env, timeout=120)
    started = [line.split() for line in result.stdout.splitlines() if line.startswith("started")]
    assert started and started[0][1] == "offline" and int(started[0][2]) < 30, result.stderr[-3000:]
    assert sum(line.startswith(WARNING) for line in result.stderr.splitlines()) == 1
