"""Check the `device` group against this machine and apply its global switches (TF32, cudnn)."""

from __future__ import annotations

import os

import torch
from hydra.utils import get_object
from omegaconf import DictConfig, ListConfig

from reprolab.cli.errors import ConfigError, DeviceError
from reprolab.run.heap import keep_freed_memory

CUDA_ACCELERATORS = {"gpu", "cuda"}


def check_device(device: DictConfig) -> None:
    """Fail with one line when the config asks for CUDA this machine does not have."""
    if str(device.accelerator) in CUDA_ACCELERATORS and not torch.cuda.is_available():
        raise DeviceError(
            f"device={device.name} asks for CUDA, but this machine has no CUDA GPU; "
            "use device=cpu (or device=auto, which picks the GPU when there is one)"
        )
    wanted = device.get("devices", 1)
    if str(device.accelerator) in CUDA_ACCELERATORS and isinstance(wanted, int) and wanted > 0:
        if wanted > torch.cuda.device_count():
            raise DeviceError(
                f"device={device.name} asks for {wanted} GPUs, this machine has {torch.cuda.device_count()}; "
                "set device.devices to fewer"
            )
    if device.get("sync_batchnorm") and not _uses_cuda(device):
        raise DeviceError(
            f"device={device.name} asks for SyncBatchNorm, which torch runs only on CUDA GPUs; "
            "set device.sync_batchnorm=false (each process then normalises over its own batch)"
        )


def _uses_cuda(device: DictConfig) -> bool:
    accelerator = str(device.accelerator)
    return accelerator in CUDA_ACCELERATORS or (accelerator == "auto" and torch.cuda.is_available())


def world_size(device: DictConfig) -> int:
    """Processes the device group starts: devices per node (-1 / "auto": every GPU, or one CPU process) × nodes."""
    devices = device.get("devices", 1)
    if isinstance(devices, list | ListConfig):
        per_node = len(devices)
    elif str(devices) in ("-1", "auto"):
        per_node = max(torch.cuda.device_count(), 1) if _uses_cuda(device) else 1
    elif isinstance(devices, str) and "," in devices:
        per_node = len([d for d in devices.split(",") if d.strip()])
    else:
        per_node = int(devices)
    return per_node * int(device.get("num_nodes", 1) or 1)


def check_world_size(cfg: DictConfig) -> None:
    """A task class with a `single_process` reason (it writes `.grad` itself, so DDP's all-reduce never runs)
    is refused on more than one process, before any process starts."""
    target = (cfg.get("task") or {}).get("_target_")
    try:
        reason = getattr(get_object(target), "single_process", None) if target else None
    except Exception:  # noqa: BLE001 — a bad `_target_` is reported where the task is built
        reason = None
    n = world_size(cfg.device)
    if reason and n > 1:
        raise ConfigError(f"{cfg.task._target_} runs on one process only ({reason}), but device={cfg.device.name} "
                          f"starts {n}; use device=cpu, device=gpu or device=auto")


NVML_CHECK = "PYTORCH_NVML_BASED_CUDA_CHECK"


def apply_device_settings(device: DictConfig) -> None:
    """Matmul precision ('high' enables TF32 on Ampere+) and cudnn autotuning, as the group says; on CPU, torch's
    plain (cached) CUDA check instead of the NVML one Lightning switches on at import, and fixed heap thresholds
    (reprolab.run.heap: no page faults re-taken on every step's activations)."""
    torch.set_float32_matmul_precision(device.get("matmul_precision", "highest"))
    torch.backends.cudnn.benchmark = str(device.get("cudnn_benchmark", False)).lower() == "true"
    if str(device.accelerator) == "cpu":
        use_cached_cuda_check()
        keep_freed_memory()


def use_cached_cuda_check() -> None:
    """Adam and AdamW ask `torch.cuda.is_available()` at every step; under Lightning's NVML-based check
    (`PYTORCH_NVML_BASED_CUDA_CHECK=1`, set so forked workers can still start CUDA) each call loads the NVML
    library again (~35 µs a step on CPU, twice the step of a small model's Adam). A CPU run starts no CUDA in
    any process, so the plain check, counted once by torch, serves it."""
    os.environ.pop(NVML_CHECK, None)
