"""Diffusion Policy as DeformGen's policy: the CPU presets are DG / 1 Source with the policy swapped and run through
the trainer (closed loop, receding horizon), the observation-history length is checked against the policy's; the
paper preset carries the paper's CNN config; the LeRobot loader cuts each frame's windows inside its own episode and
the paper-scale test metric is the denoised action of the current frame."""

import pytest
import torch
import torch.nn.functional as F

from reprolab.cli.errors import ConfigError
from reprolab.cli.train import run
from reprolab.config.compose import compose
from reprolab.models.diffusion_policy import DiffusionPolicy
from tests.experiments.deformgen.test_act import write_episodes
from tests.experiments.deformgen.test_presets import SMALL_RUN

DP = "reprolab.models.diffusion_policy.DiffusionPolicy"


def test_the_dp_preset_is_dg_with_the_policy_swapped_and_runs_through_the_trainer(tmp_path):
    dg, dp = compose(["experiment=deformgen/dg_cpu"]), compose(["experiment=deformgen/dg_dp_cpu"])
    assert dp.model._target_ == DP and (dp.data.chunk, dp.data.obs_steps) == (16, 2) == (dp.model.horizon,
                                                                                          dp.model.n_obs_steps)
    same = lambda cfg: {k: v for k, v in cfg.data.items() if k not in ("chunk", "obs_steps", "batch_size")}  # noqa: E731
    assert same(dp) == same(dg) and dp.data.batch_size == 256 and dp.trainer.max_steps == 1000
    assert (dp.model.sampler, dp.model.inference_steps, dp.model.train_steps) == ("ddim", 10, 100)
    metrics = run(compose(["experiment=deformgen/dg_dp_cpu", *SMALL_RUN, "trainer.max_steps=3",
                           "model.inference_steps=2"], output_dir=tmp_path))
    assert metrics["test/n_demos"] == 2.0 and 0.0 <= metrics["test/success_drag"] <= 100.0
    with pytest.raises(ConfigError, match="set data.obs_steps=2"):
        run(compose(["experiment=deformgen/dg_dp_cpu", *SMALL_RUN, "data.obs_steps=3", "trainer.max_steps=1"],
                    output_dir=tmp_path / "mismatch"))
    with pytest.raises(ConfigError, match="data.obs_steps must be 0 or, with data.chunk >= 1"):
        run(compose(["experiment=deformgen/dg_cpu", *SMALL_RUN, "+data.obs_steps=2", "trainer.max_steps=1"],
                    output_dir=tmp_path / "no_chunk"))


def test_the_source_dp_preset_is_the_source_arm_with_dp():
    src, dp = compose(["experiment=deformgen/source_cpu"]), compose(["experiment=deformgen/source_dp_cpu"])
    assert dp.data.generator == src.data.generator and dp.model == compose(["experiment=deformgen/dg_dp_cpu"]).model


def test_the_paper_dp_preset_is_rope_dg_with_the_papers_cnn_config(tmp_path):
    dg = compose(["experiment=deformgen/rope_dg"], output_dir=tmp_path)
    dp = compose(["experiment=deformgen/rope_dg_dp"], output_dir=tmp_path)
    m = dp.model
    assert m._target_ == DP and (m.horizon, m.n_obs_steps, m.n_action_steps) == (16, 2, 8)
    assert (list(m.down_dims), m.kernel_size, m.n_groups, m.step_embed_dim) == ([256, 512, 1024], 5, 8, 256)
    assert (m.train_steps, m.beta_schedule, m.sampler, m.inference_steps) == (100, "squaredcos_cap_v2", "ddpm", 100)
    assert (dp.data.chunk, dp.data.obs_steps) == (16, 2)
    assert {k: v for k, v in dp.data.items() if k not in ("chunk", "obs_steps")} == dg.data
    assert (dp.optimizer.lr, dp.optimizer.weight_decay, list(dp.optimizer.betas)) == (1e-4, 1e-6, [0.95, 0.999])
    assert dp.scheduler.warmup_steps == 500 and dp.trainer == dg.trainer and dp.monitor == dg.monitor


def test_the_lerobot_loader_gives_each_frame_its_history_and_window_inside_its_episode(tmp_path):
    from experiments.deformgen.lerobot_data import LeRobotDemoDataModule

    ep0, ep1 = [(0, t, t + 1.0) for t in range(3)], [(1, t, 10.0 * (t + 1)) for t in range(2)]
    ep2 = [(2, t, 100.0 * (t + 1)) for t in range(2)]
    write_episodes(tmp_path / "rope" / "train1000_yawonly", [ep1[:1] + ep0[:2], ep2 + ep0[2:] + ep1[1:]])
    dm = LeRobotDemoDataModule(str(tmp_path), val_episodes=1, test_episodes=1, chunk=3, obs_steps=2)
    dm.setup()
    got = {}
    for split in dm.splits.values():
        for hist, seq, pad in zip(*split.tensors, strict=True):
            got[int(hist[-1, 0].item())] = (hist[:, 0].tolist(), seq[:, 0].tolist(), pad.tolist())
    F_, T_ = False, True
    assert got == {0: ([0, 0], [1, 1, 2], [T_, F_, F_]), 1: ([0, 1], [1, 2, 3], [F_, F_, F_]),
                   2: ([1, 2], [2, 3, 3], [F_, F_, T_]),
                   10: ([10, 10], [10, 10, 20], [T_, F_, F_]), 11: ([10, 11], [10, 20, 20], [F_, F_, T_]),
                   20: ([20, 20], [100, 100, 200], [T_, F_, F_]), 21: ([20, 21], [100, 200, 200], [F_, F_, T_])}


def test_the_paper_dp_metric_is_the_denoised_action_of_the_current_frame():
    from experiments.deformgen.task import StateActionRegressionTask

    model = DiffusionPolicy(in_features=3, num_classes=2, horizon=4, n_obs_steps=2, n_action_steps=2,
                            down_dims=(8,), step_embed_dim=8, sampler="ddim", inference_steps=3).eval()
    task, logged = StateActionRegressionTask(model, optimizer=None), {}
    task.log = lambda name, value, **kw: logged.__setitem__(name, value)
    obs, seq, is_pad = torch.randn(5, 2, 3), torch.randn(5, 4, 2), torch.zeros(5, 4, dtype=torch.bool)
    torch.manual_seed(7)
    task.step((obs, seq, is_pad), "test")
    torch.manual_seed(7)
    now = model.sample(obs)[:, 1]                              # index T_o - 1
    assert logged["test/action_mse"].item() == pytest.approx(F.mse_loss(now, seq[:, 1]).item(), rel=1e-6)
    torch.manual_seed(7)
    task.step((obs, seq, is_pad), "val")                       # validation: the epsilon-prediction loss
    torch.manual_seed(7)
    assert logged["val/loss"].item() == pytest.approx(model.loss(obs, seq).item(), rel=1e-6)
