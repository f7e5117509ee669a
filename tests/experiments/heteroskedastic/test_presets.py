"""Every claim preset through the trainer for one batch (mean stage first, then the post-hoc heads that read
its checkpoint), the frozen mean, the calibration stored with the head, Faithful's stop-gradients, errors."""

import json

import pytest
import torch
from hydra.utils import instantiate

from experiments.heteroskedastic.posthoc import LatentVarianceHead, calibration_scale
from reprolab.config import compose
from reprolab.errors import ConfigError, DatasetNotFoundError, from_instantiation
from reprolab.train import build_task, run

ONE_BATCH = ["data=hetero_synthetic", "data.n=300", "seed=0", "trainer.max_epochs=1", "print_config=false"]
END_TO_END = ["mve_cpu", "beta_nll_cpu", "beta_nll_1_cpu", "faithful_cpu"]
POSTHOC = ["posthoc_cpu", "posthoc_last_cpu", "posthoc_ensemble_cpu", "homoskedastic_cpu"]


@pytest.fixture(scope="module")
def mean_runs(tmp_path_factory):
    root = tmp_path_factory.mktemp("mean")
    cfg = compose(["experiment=heteroskedastic/mean_cpu", *ONE_BATCH, "+trainer.limit_train_batches=1"],
                  output_dir=root / "synthetic-0")
    metrics = run(cfg)
    assert metrics["test/rmse"] > 0 and "test/nll" not in metrics
    return root


@pytest.mark.parametrize("arm", END_TO_END)
def test_end_to_end_presets_run_one_batch(arm, tmp_path):
    cfg = compose([f"experiment=heteroskedastic/{arm}", *ONE_BATCH, "+trainer.limit_train_batches=1"], output_dir=tmp_path)
    metrics = run(cfg)
    for key in ("test/rmse", "test/nll", "test/calibration_error", "test/sigma_rmse", "best/val/nll"):
        assert key in metrics and torch.isfinite(torch.tensor(metrics[key])), (key, metrics)


@pytest.mark.parametrize("arm", POSTHOC)
def test_posthoc_presets_fit_the_head_on_a_frozen_mean(arm, mean_runs, tmp_path):
    cfg = compose([f"experiment=heteroskedastic/{arm}", *ONE_BATCH, "data.holdout_steps=5", f"mean_runs={mean_runs}"],
                  output_dir=tmp_path)
    metrics = run(cfg)
    mean_metrics = (mean_runs / "synthetic-0" / "metrics.json").read_text()
    assert f'"test/rmse": {metrics["test/rmse"]}' in mean_metrics  # the mean network is untouched
    head_ckpt = torch.load(metrics["best_ckpt"], weights_only=True)["state_dict"]
    mean_ckpt = torch.load(json.loads(mean_metrics)["best_ckpt"], weights_only=True)["state_dict"]
    for key, value in mean_ckpt.items():
        assert torch.equal(head_ckpt[key.replace("model.", "model.backbone.", 1)], value)
    # the stored scale is the calibration of the stored head on the hold-out
    task = build_task(cfg)
    task.load_state_dict(head_ckpt)
    dm = instantiate(cfg.data)
    dm.setup()
    x, y, _ = dm.sets["holdout"].tensors
    out = task.model(x)
    unscaled = torch.exp(task.clamp(torch.stack(out["log_vars"], -1))).mean(-1)
    expected = calibration_scale(y - out["mean"], unscaled)
    assert torch.isclose(task.model.head.scale, expected, rtol=1e-4)
    assert metrics["test/nll"] > 0 and 0 <= metrics["test/calibration_error"] < 0.5 and "best/val/nll" in metrics


def test_faithful_trains_the_mean_exactly_as_mse(tmp_path):
    grads = {}
    cfg = compose(["experiment=heteroskedastic/faithful_cpu", *ONE_BATCH], output_dir=tmp_path)
    for objective in ("faithful", "mse"):
        torch.manual_seed(0)
        task = build_task(cfg)
        task.objective = objective
        batch = (torch.randn(16, 1), torch.randn(16), torch.full((16,), float("nan")))
        task.training_step(batch, 0).backward()
        grads[objective] = {n: p.grad for n, p in task.model.named_parameters() if not n.startswith("variance_head")}
    assert grads["mse"]
    for name, g in grads["mse"].items():
        assert torch.allclose(grads["faithful"][name], g), name


def _build_error(overrides, tmp_path) -> Exception:
    with pytest.raises(Exception) as caught:
        build_task(compose(overrides, output_dir=tmp_path))
    return from_instantiation(caught.value)


def test_errors_name_the_fix(tmp_path):
    posthoc = ["experiment=heteroskedastic/posthoc_cpu", *ONE_BATCH, f"mean_runs={tmp_path}"]
    with pytest.raises(DatasetNotFoundError, match="run the mean stage first"):
        run(compose(posthoc, output_dir=tmp_path / "a"))
    (tmp_path / "synthetic-0").mkdir()
    with pytest.raises(DatasetNotFoundError, match="has no metrics.json"):
        run(compose(posthoc, output_dir=tmp_path / "b"))
    err = _build_error(["experiment=heteroskedastic/mve_cpu", "model.variance_head=none"], tmp_path)
    assert isinstance(err, ConfigError) and "variance_head" in str(err)
    err = _build_error(["experiment=heteroskedastic/mve_cpu", "task.objective=laplace"], tmp_path)
    assert isinstance(err, ConfigError) and "task.objective" in str(err)
    with pytest.raises(ConfigError, match="task.layers"):
        LatentVarianceHead([4, 4], layers="first")


def test_posthoc_stage_refuses_to_fit_on_the_training_split(mean_runs, tmp_path):
    cfg = compose(["experiment=heteroskedastic/posthoc_cpu", *ONE_BATCH, "data.fit_on=train", f"mean_runs={mean_runs}"],
                  output_dir=tmp_path)
    with pytest.raises(ConfigError, match="data.fit_on=holdout"):
        run(cfg)
