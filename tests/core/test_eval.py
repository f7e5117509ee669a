"""reprolab-eval's config: the run's saved config as the base, the command line's keys composed as train would."""

from __future__ import annotations

import pytest
import torch
from omegaconf import OmegaConf

from reprolab.cli.errors import ConfigError, DeviceError
from reprolab.cli.eval import load_eval_config
from reprolab.config.compose import compose
from reprolab.run.build import build_run


def saved_run(tmp_path, overrides: list[str]):
    """A run folder as reprolab-train leaves it: `.hydra/config.yaml`, `.hydra/overrides.yaml`, a checkpoint."""
    (tmp_path / ".hydra").mkdir()
    OmegaConf.save(compose(overrides, output_dir=tmp_path), tmp_path / ".hydra" / "config.yaml")
    OmegaConf.save(OmegaConf.create(overrides), tmp_path / ".hydra" / "overrides.yaml")
    (tmp_path / "checkpoints").mkdir()
    ckpt = tmp_path / "checkpoints" / "best-001.ckpt"
    ckpt.write_bytes(b"")
    return str(ckpt)


def test_saved_values_stay_unless_overridden(tmp_path):
    ckpt = saved_run(tmp_path, ["experiment=cifar10/small_sgd_cpu", "optimizer.lr=0.123"])
    saved = OmegaConf.load(tmp_path / ".hydra" / "config.yaml")
    saved.optimizer.momentum = 0.37  # as if conf/ had changed since the run: the run's value wins
    OmegaConf.save(saved, tmp_path / ".hydra" / "config.yaml")
    cfg = load_eval_config(ckpt, ["seed=5", "~callbacks.lr_monitor"])
    assert (cfg.optimizer.lr, cfg.optimizer.momentum, cfg.seed) == (0.123, 0.37, 5)
    assert "lr_monitor" not in cfg.callbacks and cfg.logger is None
    assert cfg.paths.output_dir == str(tmp_path / "eval" / "best-001") and cfg.ckpt_path == ckpt
    assert OmegaConf.to_container(cfg, resolve=True)["callbacks"]["model_checkpoint"]["mode"] == "max"


def test_group_swap_replaces_the_whole_group(tmp_path):
    ckpt = saved_run(tmp_path, ["experiment=cifar10/small_sgd_cpu", "device=ddp"])
    cfg = load_eval_config(ckpt, ["device=cpu"])
    assert OmegaConf.to_container(cfg.device) == OmegaConf.to_container(compose(["device=cpu"]).device)


def test_a_key_only_the_runs_preset_brings_can_be_overridden(tmp_path):
    ckpt = saved_run(tmp_path, ["experiment=deltamomentum/lm_tiny_adamw"])
    cfg = load_eval_config(ckpt, ["data.seq_len=32"])
    assert cfg.data.seq_len == 32 and cfg.setting == "lm_tiny_adamw"


def test_another_preset_is_refused_in_one_line(tmp_path):
    ckpt = saved_run(tmp_path, ["experiment=cifar10/small_sgd_cpu"])
    with pytest.raises(ConfigError, match="'experiment' is not a key of the composed config"):
        load_eval_config(ckpt, ["experiment=deltamomentum/lm_tiny_adamw"])


def test_checkpoint_outside_a_run_folder(tmp_path):
    (tmp_path / "x.ckpt").write_bytes(b"")
    with pytest.raises(ConfigError, match="no .hydra/config.yaml above"):
        load_eval_config(str(tmp_path / "x.ckpt"), [])


def test_build_run_applies_device_settings_and_names_a_rejected_value(tmp_path):
    base = ["experiment=cifar10/small_sgd_cpu", "model=mlp", "logger=none"]
    before = torch.get_float32_matmul_precision()
    try:
        with pytest.raises(ConfigError, match="unexpected keyword argument 'nonsense'"):
            build_run(compose([*base, "device.matmul_precision=medium", "+model.nonsense=1"], output_dir=tmp_path))
        assert torch.get_float32_matmul_precision() == "medium"  # applied before anything is built
    finally:
        torch.set_float32_matmul_precision(before)
    if not torch.cuda.is_available():
        with pytest.raises(DeviceError):
            build_run(compose([*base, "device=gpu"], output_dir=tmp_path))
