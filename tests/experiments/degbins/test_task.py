"""The DegBins presets through the shared trainer: fast_dev_run on the shared real pairs, and errors."""

import pytest
import torch
import torch.nn.functional as F
from hydra.utils import instantiate

from experiments.degbins.model import stage_loss
from experiments.degbins.task import DepthSRTask
from reprolab.cli.errors import ConfigError
from reprolab.cli.train import build_task, run
from reprolab.config.compose import compose


def test_claim_preset_runs_train_val_test_and_logs_rmse_per_set(data_dir, tmp_path):
    cfg = compose(["experiment=degbins/claim_cpu", f"paths.data_dir={data_dir}", "debug=fdr", "logger=none",
                   "print_config=false"], output_dir=tmp_path)
    metrics = run(cfg)
    for key in ("test/rmse_lu", "test/rmse_bicubic_lu"):
        assert key in metrics and 0.0 < metrics[key] < 50.0, metrics
    assert 0.0 < metrics["test/bin_entropy_lu"] <= torch.log(torch.tensor(16.0)).item() + 1e-5, metrics
    assert (tmp_path / "metrics.json").exists()


@pytest.mark.slow
def test_claim_preset_bins_head_leaves_the_bicubic_fixed_point(data_dir, tmp_path):
    """With R = 1 the 3-stage bins head stayed at bicubic on every seed (Lu gain -0.0003 at seed 0, RESULTS.md,
    "Why the bins head stayed at bicubic"); with the default R = 0.1 it learns a residual (~40 CPU-s)."""
    cfg = compose(["experiment=degbins/claim_cpu", "data.scale=8", "model.head=bins", "model.stages=3", "seed=0",
                   f"paths.data_dir={data_dir}", "logger=none", "print_config=false"], output_dir=tmp_path)
    metrics = run(cfg)
    assert metrics["test/rmse_lu"] < metrics["test/rmse_bicubic_lu"] - 0.05, metrics


@pytest.mark.parametrize("scale", [4, 8, 16])
def test_paper_presets_compose_with_their_scale_and_equal_sized_heads(scale, tmp_path):
    counts = []
    for model in ("degbins", "degbins_regression"):
        cfg = compose([f"experiment=degbins/nyuv2_x{scale}", f"model={model}", "device=cpu", "logger=none"],
                      output_dir=tmp_path)
        assert cfg.data.scale == scale and cfg.monitor.metric == "val/rmse"
        assert cfg.model.head == ("bins" if model == "degbins" else "regression")
        assert [s["name"] for s in cfg.data.test_sets] == ["nyu", "middlebury", "lu", "rgbdd", "rgbdd_real"]
        counts.append(sum(p.numel() for p in build_task(cfg).parameters()))
    assert counts[0] == counts[1]


def test_task_rejects_batches_it_cannot_read(tmp_path):
    cfg = compose(["experiment=degbins/claim_cpu", "logger=none"], output_dir=tmp_path)
    task = build_task(cfg)
    with pytest.raises(ConfigError, match="dict batches"):
        task.training_step((torch.zeros(1, 3, 8, 8), torch.zeros(1)), 0)
    with pytest.raises(ConfigError, match="one size"):
        task.training_step({"rgb": torch.zeros(1, 3, 64, 64), "lr": torch.zeros(1, 1, 8, 8),
                            "gt": torch.zeros(1, 1, 32, 32)}, 0)
    assert instantiate(cfg.data).scale == 8


def test_long_claim_preset_is_the_claim_protocol_with_800_steps_of_batch_8(tmp_path):
    short = compose(["experiment=degbins/claim_cpu", "logger=none"], output_dir=tmp_path)
    long = compose(["experiment=degbins/claim_cpu_long", "logger=none"], output_dir=tmp_path)
    assert long.data.patches_per_epoch // long.data.batch_size == 800 and long.data.batch_size == 8
    assert short.data.patches_per_epoch // short.data.batch_size == 200
    for key in ("model", "optimizer", "scheduler", "task", "trainer"):
        assert long[key] == short[key], key
    assert long.setting == "claim_cpu_long"


def test_degradation_ablation_preset_mixes_degradations_and_conditions_the_bins(tmp_path):
    long = compose(["experiment=degbins/claim_cpu_long", "logger=none"], output_dir=tmp_path)
    mixed = compose(["experiment=degbins/claim_mixed", "logger=none"], output_dir=tmp_path)
    assert mixed.model.degradation_condition == "film" and mixed.model.estimate_degradation
    assert mixed.task.degradation_loss_weight > 0 and long.task.degradation_loss_weight == 0
    assert [list(d) for d in mixed.data.train_degradations] == [[4, 0.0], [8, 0.0], [16, 0.0], [8, 0.02]]
    assert mixed.data.test_degradations == mixed.data.train_degradations
    for key in ("optimizer", "scheduler", "trainer"):
        assert mixed[key] == long[key], key
    task = build_task(mixed)
    assert task.model.film is not None and task.model.estimator is not None
    clean = compose(["experiment=degbins/claim_mixed_clean", "logger=none"], output_dir=tmp_path)
    assert [list(d) for d in clean.data.train_degradations] == [[4, 0.0], [8, 0.0], [16, 0.0]]
    assert clean.data.test_degradations == mixed.data.test_degradations  # still scored under noisy x8
    for key in ("model", "optimizer", "scheduler", "task", "trainer"):
        assert clean[key] == mixed[key], key


def test_batch_32_ablation_preset_is_the_mixed_ablation_with_4x_the_patches_per_step(tmp_path):
    mixed = compose(["experiment=degbins/claim_mixed", "logger=none"], output_dir=tmp_path)
    b32 = compose(["experiment=degbins/claim_mixed_b32", "logger=none"], output_dir=tmp_path)
    assert b32.data.batch_size == 32 and b32.data.patches_per_epoch // b32.data.batch_size == 800
    assert {k: v for k, v in b32.data.items() if k not in ("batch_size", "patches_per_epoch")} == \
        {k: v for k, v in mixed.data.items() if k not in ("batch_size", "patches_per_epoch")}
    for key in ("model", "optimizer", "scheduler", "task", "trainer"):
        assert b32[key] == mixed[key], key
    assert b32.setting == "claim_mixed_b32"


@pytest.mark.parametrize("arm", ["film", "none"])
def test_film_arm_logs_its_degradation_estimate_error_per_test_degradation(arm, data_dir, tmp_path):
    none = ["model.degradation_condition=none", "model.estimate_degradation=false", "task.degradation_loss_weight=0"]
    cfg = compose(["experiment=degbins/claim_mixed_b32", f"paths.data_dir={data_dir}", "debug=fdr", "logger=none",
                   "print_config=false", *(none if arm == "none" else [])], output_dir=tmp_path)
    metrics = run(cfg)
    errors = {k: v for k, v in metrics.items() if k.startswith("test/degradation_error_")}
    assert any(k.startswith("test/bin_spread_") for k in metrics), metrics
    if arm == "none":
        assert not errors  # no estimator, nothing to score
    else:
        assert errors and all(v >= 0.0 for v in errors.values()), metrics


def test_the_degradation_loss_adds_its_weighted_mse_and_needs_an_estimator_and_codes(tmp_path):
    cfg = compose(["experiment=degbins/claim_mixed", "logger=none"], output_dir=tmp_path)
    task = build_task(cfg).eval()  # eval: the step and the reference forward see the same network
    weight = task.degradation_loss_weight
    assert weight == 0.1
    torch.manual_seed(0)
    batch = {"rgb": torch.rand(2, 3, 32, 32), "lr": torch.rand(2, 1, 4, 4), "gt": torch.rand(2, 1, 32, 32),
             "degradation": torch.tensor([[8.0, 0.0], [8.0, 0.05]])}
    loss = task.training_step(batch, 0)
    out = task.model(batch["rgb"], batch["lr"], batch["degradation"])
    depth_loss = stage_loss(out["depth"], batch["gt"], task.stage_decay, task.loss_kind, task.loss_scale)
    aux = F.mse_loss(out["degradation_estimate"], out["degradation_code"])
    assert aux > 0
    torch.testing.assert_close(loss, depth_loss + weight * aux)
    unconditioned = build_task(compose(["experiment=degbins/claim_mixed", "logger=none",
                                        "model.degradation_condition=none"], output_dir=tmp_path))
    with pytest.raises(ConfigError, match="batches that carry `degradation`"):
        unconditioned.training_step({k: v for k, v in batch.items() if k != "degradation"}, 0)
    no_estimator = compose(["experiment=degbins/claim_mixed", "logger=none", "model.estimate_degradation=false"],
                           output_dir=tmp_path)
    with pytest.raises(ConfigError, match="needs model.estimate_degradation=true"):
        DepthSRTask(instantiate(no_estimator.model), optimizer=None, degradation_loss_weight=weight)
