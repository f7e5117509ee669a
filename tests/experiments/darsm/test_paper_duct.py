"""The duct's paper-scale presets: composed as the paper's setting, and one training step each through
reprolab-train's path on an 8x8 grid on CPU (closure-challenge's ducts; McConkey's on its fake, in its layout)."""

import pytest

from reprolab.cli.train import run
from reprolab.config.compose import compose
from reprolab.data.fake import fake_config

TINY = ["device=cpu", "device.precision=64-true", "logger=none", "trainer.max_epochs=1", "print_config=false",
        "data.ny=8", "data.nz=8"]


@pytest.mark.parametrize("name, train, test", [
    ("duct_adjoint", ["AR_1_Ret_360"], ["AR_3_Ret_360", "AR_14_Ret_180"]),
    ("duct_mcconkey_adjoint", ["DUCT_1100", "DUCT_1500", "DUCT_2205"], ["DUCT_2900", "DUCT_3500"])])
def test_paper_duct_presets_are_gpu_float64_on_a_finer_grid(name, train, test, tmp_path):
    cfg = compose([f"experiment=darsm/{name}"], output_dir=tmp_path)
    assert (cfg.device.name, cfg.device.precision, cfg.setting) == ("gpu", "64-true", name)
    assert cfg.data.ny == cfg.data.nz == cfg.task.ny == cfg.task.nz == 64 and cfg.trainer.max_epochs == 200
    assert list(cfg.data.train_cases) == train and list(cfg.data.test_cases) == test
    assert "wandb" in cfg.logger and (cfg.model.hidden, cfg.model.depth) == (32, 3)


def test_mcconkey_preset_steps_on_its_fake_through_the_trainer(tmp_path):
    """`+data/fake=on` (the plan's and smoke tests' path): McConkeyDuctDataModule.fake_setup's synthetic cases."""
    cfg = fake_config(compose(["experiment=darsm/duct_mcconkey_adjoint", *TINY, "data.train_cases=[DUCT_1100]",
                               "data.test_cases=[DUCT_3500]"], output_dir=tmp_path))
    metrics = run(cfg)
    assert metrics["test/solve_residual_max"] < 1e-10
    assert 0.0 < metrics["test/u_rel_l2_unseen"] < 1.0 and metrics["test/duct_3500/sec_rel_l2"] > 0


def test_mcconkey_preset_without_its_data_is_one_line(tmp_path):
    from reprolab.cli.errors import DatasetNotFoundError

    cfg = compose(["experiment=darsm/duct_mcconkey_adjoint", *TINY, f"paths.data_dir={tmp_path}"], output_dir=tmp_path)
    with pytest.raises(DatasetNotFoundError, match="make data-mcconkey"):
        run(cfg)


def test_paper_hills_preset_is_the_paper_duct_training_tested_on_a_finer_hills_mesh(tmp_path):
    cfg = compose(["experiment=darsm/hills_adjoint"], output_dir=tmp_path)
    claim = compose(["experiment=darsm/hills_adjoint_cpu"], output_dir=tmp_path)
    assert (cfg.device.name, cfg.device.precision, cfg.setting) == ("gpu", "64-true", "hills_adjoint")
    assert cfg.data.ny == cfg.data.nz == 64 and cfg.trainer.max_epochs == 200 and "wandb" in cfg.logger
    assert cfg.data.hills_dx < claim.data.hills_dx and cfg.data.hills_ny > claim.data.hills_ny
    assert list(cfg.data.test_cases) == list(claim.data.test_cases) and cfg.task._target_ == claim.task._target_
