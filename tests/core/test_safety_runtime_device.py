"""`device=ddp_cpu` runs BatchNorm models (no SyncBatchNorm off CUDA); world sizes as the device group says."""

from __future__ import annotations

import json

import pytest
import torch

from reprolab.cli.errors import ConfigError, DeviceError
from reprolab.config.compose import compose
from reprolab.run.device import check_device, check_world_size, world_size
from tests.core.cli import run_cli, small_run_args


def test_ddp_cpu_asks_for_no_syncbatchnorm_and_two_processes():
    device = compose(["device=ddp_cpu"]).device
    assert device.sync_batchnorm is False and world_size(device) == 2
    check_device(device)


@pytest.mark.skipif(torch.cuda.is_available(), reason="needs a machine without CUDA")
def test_syncbatchnorm_without_cuda_is_refused_in_one_line():
    device = compose(["device=ddp_cpu", "device.sync_batchnorm=true"]).device
    with pytest.raises(DeviceError, match="SyncBatchNorm, which torch runs only on CUDA GPUs; set device.sync_batchnorm=false"):
        check_device(device)


def test_world_size_counts_devices_and_nodes(monkeypatch):
    assert world_size(compose(["device=cpu"]).device) == 1
    assert world_size(compose(["device=ddp_cpu", "device.num_nodes=3"]).device) == 6
    assert world_size(compose(["device=ddp_cpu", "device.devices=[0,1,2]"]).device) == 3
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 4)
    assert world_size(compose(["device=ddp"]).device) == 4  # devices: -1, every GPU


def test_only_tasks_that_say_so_are_held_to_one_process():
    check_world_size(compose(["device=ddp_cpu"]))  # the classification task runs under DDP
    with pytest.raises(ConfigError, match="MTLTask runs on one process only"):
        check_world_size(compose(["experiment=apt/claim_synthetic", "device=ddp_cpu"]))
    check_world_size(compose(["experiment=apt/claim_synthetic"]))


@pytest.mark.slow
def test_two_gloo_processes_train_and_test_a_batchnorm_resnet(tmp_path, cifar_folder):
    """resnet_small has BatchNorm2d layers; before, SyncBatchNorm (CUDA only) ended this in a traceback."""
    run = tmp_path / "run"
    result = run_cli("reprolab-train", *small_run_args(run, cifar_folder, "debug=limit", "device=ddp_cpu"), timeout=900)
    assert result.returncode == 0, result.stderr[-3000:]
    assert "Initializing distributed: GLOBAL_RANK: 0, MEMBER: 1/2" in result.stderr + result.stdout
    metrics = json.loads((run / "metrics.json").read_text())
    assert 0.0 <= metrics["test/acc"] <= 1.0 and metrics["best_ckpt"].endswith(".ckpt")
