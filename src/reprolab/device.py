"""Check the `device` group against this machine and apply its global switches (TF32, cudnn)."""

from __future__ import annotations

import torch
from omegaconf import DictConfig

from reprolab.errors import DeviceError

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


def apply_device_settings(device: DictConfig) -> None:
    """Matmul precision ('high' enables TF32 on Ampere+) and cudnn autotuning, as the group says."""
    torch.set_float32_matmul_precision(device.get("matmul_precision", "highest"))
    torch.backends.cudnn.benchmark = str(device.get("cudnn_benchmark", False)).lower() == "true"
