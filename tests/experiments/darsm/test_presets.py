"""Every darsm preset composes to the arm it names; the paper-scale preset trains one step on a tiny grid."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from reprolab.cli.errors import ConfigError
from reprolab.cli.train import run
from reprolab.config.compose import CONF_DIR, compose

PRESETS = sorted(p.stem for p in (CONF_DIR / "experiment" / "darsm").glob("*.yaml"))
ARMS = {"channel_adjoint_cpu": ("adjoint", "arsm"), "channel_unrolled_cpu": ("unrolled", "arsm"),
        "channel_offline_cpu": ("offline", "arsm"), "channel_baseline_cpu": ("none", "arsm"),
        "channel_linear_cpu": ("none", "linear"), "channel_adjoint": ("adjoint", "arsm"),
        "duct_adjoint_cpu": ("adjoint", "arsm"), "duct_baseline_cpu": ("none", "arsm"), "duct_linear_cpu": ("none", "linear"),
        "duct_grid_cpu": ("none", "arsm"), "channel_grid_cpu": ("none", "arsm"), "duct_adjoint": ("adjoint", "arsm"),
        "duct_mcconkey_adjoint": ("adjoint", "arsm"),
        "duct_unrolled_cpu": ("unrolled", "arsm"),
        "hills_adjoint_cpu": ("adjoint", "arsm"), "hills_baseline_cpu": ("none", "arsm"),
        "hills_linear_cpu": ("none", "linear"), "hills_adjoint": ("adjoint", "arsm"),
        **{f"{case}_fiml{stage}_cpu": ("adjoint", "arsm") for case in ("channel", "duct") for stage in ("", "_invert")}}
TINY = ["data.n=16", "data.train_re_tau=[180.0]", "data.test_re_tau=[360.0]", "data.stretch=2.5"]


@pytest.mark.parametrize("name", PRESETS)
def test_preset_composes_to_its_arm(name, tmp_path):
    cfg = compose([f"experiment=darsm/{name}"], output_dir=tmp_path)
    assert (cfg.task.mode, cfg.task.closure) == ARMS[name] and cfg.setting == name
    grid = {"duct": ("ny", "nz"), "hills": ("ny", "nz", "hills_dx", "hills_ny", "hills_re")}.get(name.split("_")[0], ("n",))
    assert cfg.device.precision == "64-true" and all(cfg.task[key] == cfg.data[key] for key in grid)


@pytest.mark.parametrize("case", ["channel", "duct"])
def test_fiml_presets_chain_invert_to_learn(case, tmp_path):
    """Stage 1 has one free field per case (model BetaFields); stage 2 the network and the stage-1 sweep's seed-0 run."""
    invert = compose([f"experiment=darsm/{case}_fiml_invert_cpu"], output_dir=tmp_path)
    learn = compose([f"experiment=darsm/{case}_fiml_cpu"], output_dir=tmp_path)
    assert invert.task.stage == "invert" and invert.model._target_.endswith("BetaFields") and invert.task.source == "omega"
    assert learn.task.stage == "learn" and learn.model._target_.endswith("BetaNet")
    assert learn.task.inversion_run.endswith(f"logs/claims/darsm/{case}_fiml_invert/0")
    assert {k: v for k, v in learn.data.items()} == {k: v for k, v in invert.data.items()}


def test_duct_preset_trains_two_steps_on_fake_dns(tmp_path, monkeypatch):
    """The duct's adjoint arm through reprolab-train's path on an 8x8 grid; the DNS is a fake of the package's format."""
    from experiments.darsm import duct_data

    def fake(name):
        aspect = duct_data.parse_case(name)[0]
        y, z = np.meshgrid(np.linspace(0, 1, 30), np.linspace(0, aspect, 30), indexing="ij")
        coords = np.stack([np.full(y.size, 5e-4), y.ravel() * 1e-3, z.ravel() * 1e-3], 1)
        U = np.stack([(1 - y ** 4) * (1 - (z / aspect) ** 4), 0.01 * y * (1 - y), 0.01 * z * (aspect - z) / aspect], -1)
        return coords, U.reshape(-1, 3)

    monkeypatch.setattr(duct_data, "read_closure_challenge", fake)
    cfg = compose(["experiment=darsm/duct_adjoint_cpu", "logger=none", "trainer.max_epochs=2", "print_config=false",
                   "data.ny=8", "data.nz=8", "data.test_cases=[AR_3_Ret_360]"], output_dir=tmp_path)
    metrics = run(cfg)
    assert metrics["test/solve_residual_max"] < 1e-10
    assert 0.0 < metrics["test/u_rel_l2_unseen"] < 1.0 and metrics["test/ar_3_ret_360/sec_rel_l2"] > 0


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
                                              ({"closure": "linear"}, "no parameters to train"),
                                              ({"duct": True, "mode": "offline"}, "not built for the duct")])
def test_bad_task_settings_are_one_line_errors(setting, message):
    from experiments.darsm.duct_task import DarsmDuctTask
    from experiments.darsm.model import NeuralARSM
    from experiments.darsm.task import DarsmChannelTask

    setting = dict(setting)
    task = DarsmDuctTask if setting.pop("duct", False) else DarsmChannelTask
    with pytest.raises(ConfigError, match=message):
        task(NeuralARSM(), optimizer=None, **setting)


def test_duct_corner_sign_needs_a_secondary_flow(monkeypatch):
    """A round-off secondary flow (the linear closure's ~1e-24) has no sign: its corner_sign_match is 0, not 0.5."""
    from experiments.darsm import duct_task
    from experiments.darsm.model import NeuralARSM

    task = duct_task.DarsmDuctTask(NeuralARSM(), optimizer=None, closure="linear", mode="none", ny=6, nz=6)
    case = {"name": "fake", "re_tau": 180.0, "aspect": 1.0, "unseen": True}
    duct = task.geometry(case)
    case.update({n: torch.ones(duct.shape) if n == "U" else torch.zeros(duct.shape) for n in "UVW"})
    q = duct.initial_state()
    for flow, match in ((-1e-24, 0.0), (1e-24, 0.0), (1e-3, 0.0), (-1e-3, 1.0)):
        monkeypatch.setattr(task, "solve", lambda case, warm: (q, type("Info", (), {"residual": 0.0})))
        monkeypatch.setattr(duct_task, "corner_flow", lambda duct, vel, f=flow: f if vel is not case else -1e-3)
        assert task._case_metrics(case)[0]["corner_sign_match"] == match
