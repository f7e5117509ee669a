"""Device groups resolve as documented; a wrong-shaped batch is refused with a clear message."""

from __future__ import annotations

import functools

import pytest
import torch

from reprolab.cli.errors import ConfigError, DeviceError
from reprolab.config.compose import compose
from reprolab.models.mlp import MLP
from reprolab.run.device import check_device
from reprolab.tasks.classification import ClassificationTask


@pytest.mark.skipif(torch.cuda.is_available(), reason="checks the CPU fallback")
def test_auto_device_falls_back_to_cpu():
    device = compose(["device=auto"]).device
    assert (device.accelerator, device.precision, device.matmul_precision) == ("cpu", "32-true", "highest")
    check_device(device)


def test_gpu_groups_ask_for_bf16_and_tf32():
    for name in ("gpu", "ddp", "fsdp"):
        device = compose([f"device={name}"]).device
        assert device.precision == "bf16-mixed" and device.matmul_precision == "high" and device.name == name
    assert compose(["device=ddp"]).device.strategy == "ddp"
    assert compose(["device=ddp_cpu"]).device.devices == 2


def test_multinode_reads_slurm_world(monkeypatch):
    monkeypatch.setenv("SLURM_NNODES", "4")
    monkeypatch.setenv("SLURM_NTASKS_PER_NODE", "8")
    device = compose(["device=multinode"]).device
    assert int(device.num_nodes) == 4 and int(device.devices) == 8 and device.strategy == "ddp"


@pytest.mark.skipif(torch.cuda.is_available(), reason="needs a machine without CUDA")
def test_gpu_on_cpu_machine_raises_device_error():
    with pytest.raises(DeviceError, match="device=ddp asks for CUDA"):
        check_device(compose(["device=ddp"]).device)


def test_wrong_shaped_batch_is_refused():
    task = ClassificationTask(MLP(12, hidden=4, num_classes=3), functools.partial(torch.optim.SGD, lr=0.1),
                              num_classes=3)
    with pytest.raises(ConfigError, match=r"expects \(images \[B,C,H,W\], labels \[B\]\); got \(4, 12\)"):
        task.training_step((torch.randn(4, 12), torch.zeros(4, dtype=torch.long)), 0)


def test_classification_accuracy_is_the_fraction_correct_over_the_epoch_from_metric_updates(monkeypatch, tmp_path):
    import lightning as L
    from torch.utils.data import DataLoader, TensorDataset
    from torchmetrics.classification import MulticlassAccuracy

    def no_forward(*args, **kwargs):
        raise AssertionError("the per-batch accuracy is computed, though only the epoch's is logged")

    monkeypatch.setattr(MulticlassAccuracy, "forward", no_forward)
    torch.manual_seed(0)
    images, labels = torch.randn(30, 1, 3, 4), torch.randint(0, 3, (30,))
    task = ClassificationTask(MLP(12, hidden=4, num_classes=3), functools.partial(torch.optim.SGD, lr=0.1),
                              num_classes=3)
    trainer = L.Trainer(max_epochs=1, logger=False, enable_checkpointing=False, enable_progress_bar=False,
                        enable_model_summary=False, default_root_dir=tmp_path)
    loader = DataLoader(TensorDataset(images, labels), batch_size=8)  # 4 batches, the last of 6
    trainer.fit(task, loader)
    train_acc = trainer.callback_metrics["train/acc"].item()
    (tested,) = trainer.test(task, loader)
    with torch.no_grad():
        correct = (task.model(images).argmax(-1) == labels).float().mean().item()
    assert tested["test/acc"] == pytest.approx(correct, abs=1e-7)
    assert 0.0 <= train_acc <= 1.0
