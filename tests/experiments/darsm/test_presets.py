"""Every darsm preset composes to the arm it names; the paper-scale preset trains one step on a tiny grid."""

from __future__ import annotations

import pytest

from reprolab.cli.errors import ConfigError
from reprolab.cli.train import run
from reprolab.config.compose import CONF_DIR, compose

PRESETS = sorted(p.stem for p in (CONF_DIR / "experiment" / "darsm").glob("*.yaml"))
ARMS = {"channel_adjoint_cpu": ("adjoint", "arsm"), "channel_unrolled_cpu": ("unrolled", "arsm"),
        "channel_offline_cpu": ("offline", "arsm"), "channel_baseline_cpu": ("none", "arsm"),
        "channel_linear_cpu": ("none", "linear"), "channel_adjoint": ("adjoint", "arsm")}
TINY = ["data.n=16", "data.train_re_tau=[180.0]", "data.test_re_tau=[360.0]", "data.stretch=2.5"]


@pytest.mark.parametrize("name", PRESETS)
def test_preset_composes_to_its_arm(name, tmp_path):
    cfg = compose([f"experiment=darsm/{name}"], output_dir=tmp_path)
    assert (cfg.task.mode, cfg.task.closure) == ARMS[name] and cfg.setting == name
    assert cfg.device.precision == "64-true" and cfg.task.n == cfg.data.n


def test_paper_preset_is_gpu_scale(tmp_path):
    cfg = compose(["experiment=darsm/channel_adjoint"], output_dir=tmp_path)
    assert cfg.device.name == "gpu" and cfg.data.n == 256 and max(cfg.data.test_re_tau) >= 5 * max(cfg.data.train_re_tau)


def test_paper_preset_one_step_on_cpu(tmp_path):
    cfg = compose(["experiment=darsm/channel_adjoint", "device=cpu", "device.precision=64-true", "logger=none",
                   "trainer.max_epochs=1", "print_config=false", *TINY], output_dir=tmp_path)
    metrics = run(cfg)
    assert metrics["test/solve_residual_max"] < 1e-10 and 0.0 <= metrics["test/u_rel_l2_unseen"] < 1.0


@pytest.mark.parametrize("setting, message", [({"mode": "backprop"}, "task.mode 'backprop' unknown"),
                                              ({"closure": "spalart"}, "task.closure 'spalart' unknown"),
                                              ({"transport": "sst"}, "task.transport 'sst' unknown"),
                                              ({"closure": "linear"}, "no parameters to train")])
def test_bad_task_settings_are_one_line_errors(setting, message):
    from experiments.darsm.model import NeuralARSM
    from experiments.darsm.task import DarsmChannelTask

    with pytest.raises(ConfigError, match=message):
        DarsmChannelTask(NeuralARSM(), optimizer=None, **setting)
