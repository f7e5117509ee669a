"""Every delightful preset runs one batch of train/val/test through the trainer; paper presets compose as asked."""

from pathlib import Path

import pytest

from reprolab.cli.errors import DatasetNotFoundError
from reprolab.cli.train import run
from reprolab.config.compose import CONF_DIR, compose

PRESETS = sorted(p.stem for p in (CONF_DIR / "experiment" / "delightful").glob("*.yaml"))
CPU_PRESETS = [p for p in PRESETS if p.endswith("_cpu")]


def one_batch(name: str, tmp_path: Path, *extra: str):
    cfg = compose([f"experiment=delightful/{name}", "device=cpu", "logger=none", "debug=fdr", "print_config=false",
                   *extra], output_dir=tmp_path)
    return cfg, run(cfg)


@pytest.mark.parametrize("name", CPU_PRESETS)
def test_cpu_preset_one_batch(name, tmp_path):
    _, metrics = one_batch(name, tmp_path)
    metric = "test/error_pct" if name.startswith("digits") else "test/seq_error_pct"
    assert 0.0 <= metrics[metric] <= 100.0


def test_paper_reversal_preset_one_batch_on_cpu(tmp_path):
    cfg, metrics = one_batch("reversal_frictions", tmp_path)
    assert cfg.data.max_length == 16 and metrics["test/longest_solved"] >= 0


def test_paper_presets_ask_for_a_gpu_and_wandb():
    for name in ("mnist_stale", "reversal_frictions"):
        cfg = compose([f"experiment=delightful/{name}"])
        assert cfg.device.accelerator == "gpu" and "wandb" in cfg.logger


def test_mnist_preset_without_data_is_one_clear_line(tmp_path):
    with pytest.raises(DatasetNotFoundError, match="has no MNIST; run 'make data-mnist'"):
        one_batch("mnist_stale", tmp_path, f"paths.data_dir={tmp_path}")


def test_every_arm_is_one_config_key(tmp_path):
    for arm in ("reinforce", "iw", "iw_clipped", "ppo", "dg", "sign_blind"):
        cfg = compose(["experiment=delightful/digits_stale_cpu", f"task.loss={arm}"])
        assert cfg.task.loss == arm and cfg.task.staleness == 100
