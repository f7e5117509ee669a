"""Every claim preset through the trainer for one batch (mean stage first, then the post-hoc heads that read
its checkpoint), the frozen mean, the calibration stored with the head, Faithful's stop-gradients, errors."""

import json

import pytest
import torch
from hydra.utils import instantiate

from experiments.heteroskedastic.data import TabularRegressionDataModule
from experiments.heteroskedastic.posthoc import LatentVarianceHead, bootstrap_counts, calibration_scale
from reprolab.cli.errors import ConfigError, DatasetNotFoundError, from_instantiation
from reprolab.cli.train import build_task, run
from reprolab.config.compose import compose

ONE_BATCH = ["data=hetero_synthetic", "data.n=300", "seed=0", "trainer.max_epochs=1", "print_config=false"]
END_TO_END = ["mve_cpu", "beta_nll_cpu", "beta_nll_1_cpu", "faithful_cpu"]
POSTHOC = ["posthoc_cpu", "posthoc_last_cpu", "posthoc_ensemble_cpu", "posthoc_bootstrap_cpu", "homoskedastic_cpu"]


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
    with pytest.raises(DatasetNotFoundError) as missing:
        run(compose(posthoc, output_dir=tmp_path / "a"))
    assert str(missing.value) == (f"no mean-network checkpoint at '{tmp_path / 'synthetic-0'}'; run the mean stage "
                                  "first (make claim-heteroskedastic runs it into mean_runs; one run: reprolab-train "
                                  "experiment=heteroskedastic/mean_cpu), or set task.mean_ckpt=<a finished mean run's "
                                  "folder or .ckpt>")
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


def test_variance_stage_never_reads_the_training_split(mean_runs, tmp_path, monkeypatch):
    """The head, its standardisation, its start and its calibration see the hold-out (val/test only to score)."""
    read = []
    original = TabularRegressionDataModule.loader
    monkeypatch.setattr(TabularRegressionDataModule, "loader",
                        lambda self, split, shuffle=False: read.append(split) or original(self, split, shuffle))
    run(compose(["experiment=heteroskedastic/posthoc_bootstrap_cpu", *ONE_BATCH, "data.holdout_steps=3",
                 f"mean_runs={mean_runs}"], output_dir=tmp_path))
    assert "holdout" in read and "train" not in read


def test_test_nll_is_the_full_gaussian_nll_in_original_units(mean_runs, tmp_path):
    cfg = compose(["experiment=heteroskedastic/posthoc_cpu", *ONE_BATCH, "data.holdout_steps=5", f"mean_runs={mean_runs}"],
                  output_dir=tmp_path)
    metrics = run(cfg)
    task = build_task(cfg)
    task.load_state_dict(torch.load(metrics["best_ckpt"], weights_only=True)["state_dict"])
    dm = instantiate(cfg.data)
    dm.setup()
    x, y, _ = dm.sets["test"].tensors
    with torch.no_grad():
        mean, var = task.predict(x)
    s, m = dm.target_std, dm.target_mean
    reference = torch.nn.GaussianNLLLoss(full=True)(mean * s + m, y * s + m, var * s**2)
    assert metrics["test/nll"] == pytest.approx(reference.item(), rel=1e-5)
    standardised = torch.nn.GaussianNLLLoss(full=True)(mean, y, var)     # full=True: with ½ log 2π
    assert reference.item() == pytest.approx(standardised.item() + torch.log(torch.tensor(s)).item(), rel=1e-5)


def test_log_variance_is_clamped_in_every_arm(tmp_path):
    mve = build_task(compose(["experiment=heteroskedastic/mve_cpu", *ONE_BATCH], output_dir=tmp_path))
    with torch.no_grad():
        mve.model.variance_head.bias.fill_(50.0)
        mve.model.variance_head.weight.zero_()
    _, var = mve.predict(torch.zeros(3, 1))
    assert torch.allclose(var, torch.full((3,), torch.exp(torch.tensor(mve.log_var_max)).item()))
    posthoc = build_task(compose(["experiment=heteroskedastic/posthoc_cpu", *ONE_BATCH], output_dir=tmp_path))
    assert torch.allclose(posthoc.variance(torch.tensor([[-80.0, 80.0]])),
                          (torch.exp(torch.tensor(-10.0)) + torch.exp(torch.tensor(10.0))) / 2)


def test_bootstrap_heads_resample_the_holdout_and_share_the_latents():
    counts = bootstrap_counts(7, 3, seed=0)
    assert counts.shape == (3, 7) and (counts.sum(1) == 7).all() and not torch.equal(counts[0], counts[1])
    assert torch.equal(counts, bootstrap_counts(7, 3, seed=0))
    head = LatentVarianceHead([4, 3], layers="all", bootstrap_heads=3)
    assert [lin.in_features for lin in head.linears] == [7, 7, 7]
    per_layer = LatentVarianceHead([4, 3], layers="all", ensemble=True)
    assert per_layer.columns == [[0, 1, 2, 3], [4, 5, 6]]
    with pytest.raises(ConfigError, match="not both"):
        LatentVarianceHead([4, 3], ensemble=True, bootstrap_heads=2)


def test_each_bootstrap_head_is_fitted_on_its_own_resample(tmp_path):
    """One training step: a head's gradient is that of its count-weighted NLL (rows outside its resample give none)."""
    cfg = compose(["experiment=heteroskedastic/posthoc_bootstrap_cpu", *ONE_BATCH, "task.l2=0"], output_dir=tmp_path)
    task = build_task(cfg)
    task.row_weights = torch.zeros(5, 4)
    task.row_weights[0, 2] = 4.0                                      # head 0 drew row 2 four times
    x, y = torch.randn(4, 1), torch.randn(4)
    task.training_step((x, y, torch.zeros(4)), 0).backward()
    head0 = task.model.head.linears[0]
    out = task.model(x)
    r2 = (y - out["mean"]) ** 2
    lv = out["log_vars"][0][2].detach()
    expected = 4.0 / 4 * 0.5 * (1 - r2[2] * torch.exp(-lv))           # d/d bias of mean_i w_i ½(lv + r²e^{-lv})
    assert head0.bias.grad.item() == pytest.approx(expected.item(), rel=1e-5)
    assert task.model.head.linears[1].bias.grad.abs().item() == 0.0
